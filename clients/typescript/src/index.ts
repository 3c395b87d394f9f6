export { createClient, type GeoClient, GeoClientCore, type PageEvent, type PaginateOptions } from './client.js';
export { toCsv, toRows } from './csv.js';
export { GeoApiError, GeoIncompleteListError, isGeoApiError } from './errors.js';
export { API_ERROR_CODES, OPERATIONS, type ReadMethods } from './operations.js';
export type {
  ApiErrorCode,
  CallOptions,
  ClientErrorCode,
  ClientOptions,
  components,
  FetchLike,
  GeoErrorCode,
  ListReadName,
  operations,
  paths,
  RateLimit,
  ReadItem,
  ReadName,
  ReadParams,
  ReadResponse,
  ReadResult,
  RetryEvent,
  Schema,
} from './types.js';
