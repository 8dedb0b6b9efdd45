import { uploadCases } from './uploads.cases';

uploadCases('local');
