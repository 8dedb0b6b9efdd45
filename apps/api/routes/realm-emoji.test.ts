import { realmEmojiCases } from './realm-emoji.cases';

realmEmojiCases('local');
