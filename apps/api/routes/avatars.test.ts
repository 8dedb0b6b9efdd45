import { avatarCases } from './avatars.cases';

avatarCases('local');
