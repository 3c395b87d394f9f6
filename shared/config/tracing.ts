/**
 * X-Ray tracing of the spans a call is made of (shared/store/trace.ts). On Lambda with active tracing the
 * runtime names the X-Ray daemon (AWS_XRAY_DAEMON_ADDRESS, `host:port`, or `tcp:host:port udp:host:port`)
 * and sets the trace header of each invocation (_X_AMZN_TRACE_ID), which Powertools' tracer and
 * aws-xray-sdk-core read themselves. Without a daemon there is nowhere to send a span: the local stack,
 * the tests and any process outside Lambda trace nothing, and never import the tracer.
 * POWERTOOLS_TRACE_DISABLED (same truthy values as Powertools' flags) turns it off on Lambda too; the CDK
 * app sets it when a stage switches tracing off (docs/operating.md#tracing). The address is checked here
 * so that a malformed one fails the cold start, as any malformed setting does.
 */
export interface TracingConfig {
  /** Where the tracer sends spans (UDP); undefined: tracing is off for this process. */
  daemon: { host: string; port: number } | undefined;
}

const TRUTHY = new Set(['1', 'y', 'yes', 't', 'true', 'on']);

/** The UDP address of the daemon, from either form the variable takes. */
function daemonAddress(value: string): { host: string; port: number } {
  const udp = value.split(/\s+/).find((part) => part.startsWith('udp:'));
  const address = udp ? udp.slice('udp:'.length) : value.trim();
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at);
  const port = Number(address.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error('invalid configuration: AWS_XRAY_DAEMON_ADDRESS must be host:port');
  return { host, port };
}

export function parseTracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig {
  // POWERTOOLS_TRACE_ENABLED=false is Powertools' own off switch: honoured here too, so it loads nothing.
  const disabled =
    TRUTHY.has((env.POWERTOOLS_TRACE_DISABLED ?? '').trim().toLowerCase()) ||
    (env.POWERTOOLS_TRACE_ENABLED ?? '').trim().toLowerCase() === 'false';
  const onLambda = Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
  const address = env.AWS_XRAY_DAEMON_ADDRESS;
  if (disabled || !onLambda || !address) return { daemon: undefined };
  return { daemon: daemonAddress(address) };
}

let cached: TracingConfig | undefined;
/** This process's tracing settings, parsed on first use. */
export function tracingConfig(): TracingConfig {
  cached ??= parseTracingConfig();
  return cached;
}
