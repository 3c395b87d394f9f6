import { describe, expect, test } from '@jest/globals';
import { classifyStoreError, type StoreFault, type StorePhase } from '#shared/store/faults.js';

/** An error shaped like node-postgres raises them: a DatabaseError carries the SQLSTATE in `code`. */
const pgError = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

/**
 * The fault table of docs/errors.md#faults, row by row, including the classes the reliability battery cannot provoke on
 * the shared server (out of memory, crash of another backend, certificate errors...).
 */
const TABLE: Array<[string, Error, StorePhase, StoreFault]> = [
  ['08006 connection failure', pgError('08006'), 'query', 'unavailable'],
  ['08001 cannot establish connection', pgError('08001'), 'connect', 'unavailable'],
  ['53300 too many connections', pgError('53300', 'sorry, too many clients already'), 'connect', 'unavailable'],
  ['53300 opening the connection of a read', pgError('53300'), 'connect', 'unavailable'],
  ['53200 out of memory', pgError('53200'), 'query', 'unavailable'],
  ['53100 disk full', pgError('53100'), 'query', 'unavailable'],
  ['57014 statement timeout', pgError('57014', 'canceling statement due to statement timeout'), 'query', 'unavailable'],
  ['57P01 terminated by an administrator', pgError('57P01'), 'query', 'unavailable'],
  ['57P02 crash of another backend', pgError('57P02'), 'query', 'unavailable'],
  ['57P03 starting up', pgError('57P03', 'the database system is starting up'), 'connect', 'unavailable'],
  ['55000 database not accepting connections, at startup', pgError('55000'), 'connect', 'unavailable'],
  ['ECONNREFUSED', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'connect', 'unavailable'],
  ['ECONNRESET', pgError('ECONNRESET'), 'query', 'unavailable'],
  ['ETIMEDOUT', pgError('ETIMEDOUT'), 'connect', 'unavailable'],
  ['EHOSTUNREACH', pgError('EHOSTUNREACH'), 'connect', 'unavailable'],
  ['EPIPE', pgError('EPIPE'), 'query', 'unavailable'],
  ['EAI_AGAIN (resolver failing for now)', pgError('EAI_AGAIN'), 'connect', 'unavailable'],
  ['pg connect timeout', new Error('Connection terminated due to connection timeout'), 'connect', 'unavailable'],
  ['pg-pool checkout timeout', new Error('timeout exceeded when trying to connect'), 'connect', 'unavailable'],
  ['pg query_timeout', new Error('Query read timeout'), 'query', 'unavailable'],
  ['connection terminated mid-statement', new Error('Connection terminated unexpectedly'), 'query', 'unavailable'],
  ['28P01 wrong password', pgError('28P01'), 'connect', 'configuration'],
  ['28000 no pg_hba entry / unknown role', pgError('28000'), 'connect', 'configuration'],
  ['3D000 unknown database', pgError('3D000'), 'connect', 'configuration'],
  ['42501 permission denied', pgError('42501'), 'query', 'configuration'],
  ['42P01 undefined table (schema not migrated)', pgError('42P01'), 'query', 'configuration'],
  ['57P04 database dropped', pgError('57P04'), 'query', 'configuration'],
  ['ENOTFOUND (the name does not exist)', pgError('ENOTFOUND'), 'connect', 'configuration'],
  ['server without TLS, client requiring it', new Error('The server does not support SSL connections'), 'connect', 'configuration'],
  ['self-signed certificate', pgError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'connect', 'configuration'],
  ['certificate host mismatch', pgError('ERR_TLS_CERT_ALTNAME_INVALID'), 'connect', 'configuration'],
  ['unverifiable certificate', pgError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'connect', 'configuration'],
  ['SASL without a password', new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), 'connect', 'configuration'],
  ['an uncoded failure while connecting', new Error('something odd'), 'connect', 'configuration'],
  ['40P01 deadlock', pgError('40P01'), 'query', 'statement'],
  ['40001 serialization failure', pgError('40001'), 'query', 'statement'],
  ['55P03 lock timeout', pgError('55P03'), 'query', 'statement'],
  ['25006 read-only transaction (a failover to a reader)', pgError('25006'), 'query', 'statement'],
  ['55000 in a statement', pgError('55000'), 'query', 'statement'],
  ['22P02 invalid input', pgError('22P02'), 'query', 'statement'],
  ['XX000 internal error of the server', pgError('XX000'), 'query', 'statement'],
  ['a thrown string', 'boom' as unknown as Error, 'query', 'statement'],
];

describe('classification of store failures (docs/errors.md, Faults)', () => {
  test.each(TABLE)('%s → %s', (_name, err, phase, fault) => {
    expect(classifyStoreError(err, phase)).toBe(fault);
  });
});
