import { realmEmojiCases } from './realm-emoji.cases';

realmEmojiCases('s3');
