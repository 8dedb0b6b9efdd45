import { avatarCases } from './avatars.cases';

avatarCases('s3');
