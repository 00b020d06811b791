// Errors whose message is meant for the user as is (no stack trace).
export class UserError extends Error {}
