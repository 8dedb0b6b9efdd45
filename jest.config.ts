import type { Config } from 'jest';

const ESM_ONLY = ['openid-client', 'oauth4webapi', 'jose'].join('|');

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // ESM-only packages the server loads with require() (node >= 20.19 does so natively).
    [`/node_modules/(${ESM_ONLY})/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY})/)`],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker that has run many files holds what they loaded (CI's ran out of its 4 GB heap after
  // ~90 files): one over this is replaced before its next file.
  workerIdleMemoryLimit: '1500MB',
};

export default config;
