/** Lets a test subset run without the full stack set up by the default global setup. */
export default async (): Promise<void> => {};
