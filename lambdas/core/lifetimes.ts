/**
 * The contract's lifetimes (contract: Lifetimes): a reservation lives 30 days, a message 15
 * minutes. Defined here once: the services, `npm start`'s configuration, the stack runner and the
 * operator CLI take them from here, and only a local run shortens them.
 */
export const emailLifetimeSeconds = 30 * 24 * 60 * 60;
/** The contract's message lifetime. */
export const messageLifetimeSeconds = 15 * 60;
