export * from './job-catalogue';
export * from './email';
export * from './enqueue';
export * from './notifications';
export * from './queues';
export * from './outbox';
export * from './relay';
