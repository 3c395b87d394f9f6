import { types } from '../builtins.js';

/**
 * What a failure of the measurement store tells the caller to do (docs/errors.md#faults):
 *  - unavailable:   the store cannot serve now (asleep, waking, restarting, full, unreachable, cut off):
 *                   503 upstream_timeout with the wake delay; waiting and retrying helps.
 *  - configuration: the deployment is wrong (login, TLS, database name, host name, grants, schema):
 *                   500 internal_error; retrying does not help, the operator must fix it.
 *  - statement:     the store answered and this statement failed (deadlock, lock timeout, a read-only
 *                   session after a failover...): internal_error in a read, rate_limit_unavailable
 *                   in the caller statement (key, plan, reach; docs/contract.md#errors).
 */
export type StoreFault = 'unavailable' | 'configuration' | 'statement';

/** Where the error arose: opening a connection (startup, TLS, login) or running a statement on one. */
export type StorePhase = 'connect' | 'query';

/** The cause as the log line carries it: enough to act on, never a parameter value or a secret. */
export interface FaultCause {
  fault: StoreFault;
  phase: StorePhase;
  sqlstate?: string;
  errno?: string;
  message: string;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

// SQLSTATE classes (PostgreSQL Appendix A).
//  08 connection exception; 53 insufficient resources (53300 too many connections, 53200 out of memory,
//  53100 disk full); 57 operator intervention (57014 statement cancelled by statement_timeout, 57P01
//  terminated by an administrator, 57P02 crash of another backend, 57P03 starting up / shutting down /
//  in recovery, 57P05 idle session timeout), except 57P04 (the database was dropped).
const UNAVAILABLE_SQLSTATE = /^(08|53|57(?!P04))/;
//  28 invalid authorization (wrong password, no pg_hba entry: e.g. TLS required and not offered, unknown
//  role); 3D000 no such database; 3F000 no such schema; 42 syntax error or access rule violation (42501
//  permission denied, 42P01 no such table: grants or schema disagree with the code); 57P04 database dropped.
const CONFIGURATION_SQLSTATE = /^(28|3D|3F|42|57P04)/;

// Node's socket errors. ENOTFOUND (the name does not exist) is configuration: the host is a fixed
// endpoint named by the deployment, so a missing name is a wrong or deleted endpoint, and retrying in
// 20 s will not make it exist. EAI_AGAIN is the resolver failing for now: unavailable.
const CONFIGURATION_ERRNO = /^(ENOTFOUND|EPROTO|ERR_TLS_.*|ERR_SSL_.*|.*CERT.*|.*_SIGNATURE|.*_ISSUER.*)$/;
const UNAVAILABLE_ERRNO = /^E[A-Z_]+$/;

// node-postgres and pg-pool raise these without a code.
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Connection ended|connection timeout/i;
const CONFIGURATION_MESSAGE = /SSL|TLS|certificate|SASL|password/i;

function isError(err: unknown): err is Error & { code?: unknown } {
  // isNativeError also recognises errors made in another realm: socket errors come from Node's core,
  // which is another realm than the code when it runs inside a vm (jest).
  return err instanceof Error || types.isNativeError(err);
}

/** Classifies a failure of the store by SQLSTATE, errno or message, and the phase it arose in. */
export function classifyStoreError(err: unknown, phase: StorePhase): StoreFault {
  if (!isError(err)) return phase === 'connect' ? 'configuration' : 'statement';
  const code = typeof err.code === 'string' ? err.code : undefined;
  if (code !== undefined && SQLSTATE.test(code) && !code.startsWith('E')) {
    if (UNAVAILABLE_SQLSTATE.test(code)) return 'unavailable';
    if (CONFIGURATION_SQLSTATE.test(code)) return 'configuration';
    // Refused at startup for any other reason (55000: the database is not accepting connections): the
    // server is there and says "not now".
    return phase === 'connect' ? 'unavailable' : 'statement';
  }
  if (code !== undefined && CONFIGURATION_ERRNO.test(code)) return 'configuration';
  if (code !== undefined && UNAVAILABLE_ERRNO.test(code)) return 'unavailable';
  if (UNAVAILABLE_MESSAGE.test(err.message)) return 'unavailable';
  if (CONFIGURATION_MESSAGE.test(err.message)) return 'configuration';
  // An uncoded failure while connecting comes from the client's own set-up (TLS options, a password
  // function that throws, a malformed connection string): configuration, logged with its message.
  return phase === 'connect' ? 'configuration' : 'statement';
}

/** The log form of a store failure. */
export function storeFaultCause(err: unknown, phase: StorePhase): FaultCause {
  const fault = classifyStoreError(err, phase);
  if (!isError(err)) return { fault, phase, message: String(err) };
  const code = typeof err.code === 'string' ? err.code : undefined;
  const sqlstate = code !== undefined && SQLSTATE.test(code) && !code.startsWith('E') ? code : undefined;
  return {
    fault,
    phase,
    ...(sqlstate ? { sqlstate } : {}),
    ...(code !== undefined && !sqlstate ? { errno: code } : {}),
    message: err.message,
  };
}

/** An error raised by the store wrapper, carrying its classified cause for the log. */
export class StoreError extends Error {
  override readonly cause: FaultCause;
  constructor(cause: FaultCause) {
    super(
      `measurement store ${cause.fault} fault (${cause.phase}): ${cause.sqlstate ?? cause.errno ?? ''} ${cause.message}`.replace(
        / +/g,
        ' ',
      ),
    );
    this.name = 'StoreError';
    this.cause = cause;
  }
}
