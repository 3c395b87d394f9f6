/**
 * What an assistant host reads from one tool result. A host forwards either the text block or
 * JSON.stringify(structuredContent) to the model, so both are held to the same figures:
 * - A call with default arguments: at most ASSISTANT_DEFAULT_CHARS characters each, so that a host shows
 *   it whole (Gemini CLI cuts a longer result, keeping its first 8,000 and last 32,000 characters;
 *   Claude Code sets aside one over 50,000 characters and shows a preview).
 * - Any legal call: at most ASSISTANT_RESULT_BYTES each (Claude Code refuses a result over 25,000
 *   tokens; JSON with ids and numbers runs about 3 bytes a token), unless the read's description says
 *   what one unit of its result weighs (a day, a prompt per engine, a run per engine) and how to ask for
 *   less: its `*_SIZE` constant. Such a result may be larger, but no larger than that weight times its
 *   units plus a fixed allowance for the rest.
 * The tests hold this: test/mcp/sizes.test.ts on every legal call and every default call on the demo;
 * test/reliability/mcp-sizes.long-history.ts (npm run test:long-history, after the reliability battery)
 * on one year of daily runs, where it holds every default call to ASSISTANT_DEFAULT_CHARS, each MCP page
 * default to the largest page that leaves DEFAULT_PAGE_MARGIN_CHARS, and each `*_SIZE` weight to the
 * measured one.
 */
export const ASSISTANT_DEFAULT_CHARS = 40_000;

export const ASSISTANT_RESULT_BYTES = 75_000;

/**
 * How far under ASSISTANT_DEFAULT_CHARS a tool's default page stays (shared/mcp/tools.ts), with any
 * window: room for what every result carries besides the read's body (its `rate_limit`, about 70
 * characters) and for figures added to the contract later, so that the next such addition does not push
 * a default call over.
 */
export const DEFAULT_PAGE_MARGIN_CHARS = 4_000;

/** "about 160": a figure rounded down to the tens, as a description quotes it. */
export const roughly = (n: number): number => Math.floor(n / 10) * 10;
