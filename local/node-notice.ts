/** The oldest Node major that AWS SDK releases after the first week of January 2027 accept. */
const SDK_NODE_MAJOR = 22;

/** The AWS SDK's switch that turns its Node version warning off, as environment entries for a child process. */
export const SDK_NODE_WARNING_OFF = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } as const;

/** Turns the SDK's Node version warning off in this process (before any client is built), unless set. */
export function quietSdkNodeWarning(): void {
  for (const [name, value] of Object.entries(SDK_NODE_WARNING_OFF)) process.env[name] ??= value;
}

/**
 * The local tools run on any Node package.json admits; the functions run on the Lambda runtime's, which
 * .nvmrc names. On a major older than the SDK's coming floor, the AWS SDK prints a nine-line
 * NodeVersionSupportWarning when it builds its first client; this says the same in one line instead,
 * once, and must run before any client is built.
 */
export function noticeNodeVersion(): void {
  quietSdkNodeWarning();
  if (Number(process.versions.node.split('.')[0]) >= SDK_NODE_MAJOR) return;
  console.warn(
    `note: Node ${process.versions.node} runs the local stack; the functions run on the Node major .nvmrc names, and AWS SDK releases after the first week of January 2027 need Node ${SDK_NODE_MAJOR} or newer.`,
  );
}
