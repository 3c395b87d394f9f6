/** The yardstick for cold-import figures: a handler that imports nothing. */
export const handler = async (): Promise<{ statusCode: number; body: string }> => ({ statusCode: 200, body: '{}' });
