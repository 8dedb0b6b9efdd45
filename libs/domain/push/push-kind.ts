export const PushKind = { APNS: 1, FCM: 2 } as const;

export type PushKindCode = (typeof PushKind)[keyof typeof PushKind];
