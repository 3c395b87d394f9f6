/** Where `npm run openapi` writes the methodology resource the MCP function serves (geo://methodology). */
export const METHODOLOGY_FILE = 'shared/mcp/methodology.ts';

/** What the resource is made from: the page that says what each figure means. */
export const METHODOLOGY_SOURCE = 'docs/figures.md';

/**
 * The page as a model reads it: the same Markdown, with each link reduced to its text, since a link
 * relative to docs/ leads nowhere from inside an assistant.
 */
export function methodologyText(markdown: string): string {
  return markdown.replace(/\[([^\]]*)\]\([^)\s]*\)/g, '$1');
}

/** The module holding the resource's text in one string, the exact bytes a client gets. */
export function methodologyModule(markdown: string): string {
  const text = JSON.stringify(methodologyText(markdown));
  return `/**
 * The text of the MCP resource geo://methodology: ${METHODOLOGY_SOURCE} with its links reduced to their text,
 * written by \`npm run openapi\` (scripts/openapi/methodology.ts). Generated: do not edit;
 * test/mcp/prompts.test.ts fails when it is not the text the page makes.
 */
export const METHODOLOGY: string =
  ${text};
`;
}
