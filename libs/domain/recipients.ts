/** Recipient.type: who a message is addressed to. */
export const RecipientType = {
  PERSONAL: 1,
  STREAM: 2,
  DIRECT_MESSAGE_GROUP: 3,
} as const;
