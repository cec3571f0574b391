/**
 * The `@project` slash commands by who answers them. The participant routes on these names
 * without loading the handlers (dist/chat.js), and the handlers' tables are typed by them, so a
 * name here without a handler does not compile.
 */

/** Answered from the index without a model (`chatCommands.ts`). */
export const indexCommandNames = ['search', 'symbol', 'manifest', 'health', 'rebuild'] as const;
export type IndexCommandName = (typeof indexCommandNames)[number];

/** Pins and memory (`curationChat.ts`). */
export const curationCommandNames = ['pin', 'unpin', 'pins', 'remember', 'memory'] as const;
