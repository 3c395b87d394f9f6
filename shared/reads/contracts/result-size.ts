/**
 * What an assistant host reads from one tool result: Claude Code refuses a result over 25,000 tokens,
 * JSON with ids and numbers runs about 3 bytes a token, and a host forwards either the text block or
 * JSON.stringify(structuredContent), so each is held to this many bytes: every legal call on the demo
 * (test/mcp/sizes.test.ts), every default call on one year of daily runs (npm run test:long-history,
 * after the reliability battery: test/reliability/mcp-sizes.long-history.ts). Where a legal call on a long history can still go over,
 * the read's description says what a result weighs and how to ask for less (its `*_SIZE` constant,
 * which that test holds to the measured weight).
 */
export const ASSISTANT_RESULT_BYTES = 75_000;

/** "about 160": a figure rounded down to the tens, as a description quotes it. */
export const roughly = (n: number): number => Math.floor(n / 10) * 10;
