import { uploadCases } from './uploads.cases';

uploadCases('s3');
