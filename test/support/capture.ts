import { jest } from '@jest/globals';

/** Everything written to stdout and stderr while `work` runs (the JSON logs go there), as text. */
export async function captureOutput(work: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const capture = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(capture),
    jest.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return chunks.join('');
}

/** The JSON log lines written while `work` runs. */
export async function captureLogLines(work: () => Promise<unknown>): Promise<Array<Record<string, any>>> {
  const text = await captureOutput(work);
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}
