// Generated from openapi/openapi.json by clients/typescript/scripts/generate.ts. Do not edit.

import type { CallOptions, ReadParams, ReadResult } from './types.js';

/** Every code an error body of the API can carry: the contract's, then those answered before any route. */
export const API_ERROR_CODES = ["analysis_not_found","not_found","api_disabled","internal_error","invalid_request","cursor_expired","method_not_allowed","plan_required","origin_not_allowed","rate_limit_unavailable","upstream_timeout","rate_limited","unauthorized","key_revoked","malformed_request","payload_too_large","headers_too_large"] as const;

/** The reads, in the order of the document: what the client methods and the CLI are made from. */
export const OPERATIONS = {
  "getMe": {
    "operationId": "get_me",
    "summary": "Describe the calling key",
    "path": "/me",
    "params": [],
    "paging": null,
    "rows": null,
    "maxLimit": null
  },
  "listAnalyses": {
    "operationId": "list_analyses",
    "summary": "List the analyses the key can read",
    "path": "/analyses",
    "params": [
      {
        "name": "limit",
        "in": "query",
        "required": false,
        "type": "integer",
        "description": "Page size, 1..200."
      },
      {
        "name": "cursor",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "next_cursor of the previous page, unchanged (bound to its read, analysis, key and window)."
      }
    ],
    "paging": "cursor",
    "rows": "items",
    "maxLimit": 200
  },
  "getAnalysis": {
    "operationId": "get_analysis",
    "summary": "Get one analysis",
    "path": "/analyses/{analysis}",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      }
    ],
    "paging": null,
    "rows": null,
    "maxLimit": null
  },
  "getMetrics": {
    "operationId": "get_metrics",
    "summary": "Headline metrics over a window",
    "path": "/analyses/{analysis}/metrics",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "last-run",
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before)."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "segments",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "none",
          "branded"
        ],
        "description": "branded: also split figures by prompts naming the brand or not."
      }
    ],
    "paging": null,
    "rows": null,
    "maxLimit": null
  },
  "getMetricsTimeseries": {
    "operationId": "get_metrics_timeseries",
    "summary": "Daily series of headline metrics",
    "path": "/analyses/{analysis}/metrics/timeseries",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Measurement window, default 30d. Excludes from/to."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "segments",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "none",
          "branded"
        ],
        "description": "branded: also split figures by prompts naming the brand or not."
      }
    ],
    "paging": null,
    "rows": "points",
    "maxLimit": null
  },
  "listEngines": {
    "operationId": "list_engines",
    "summary": "Headline metrics per AI engine",
    "path": "/analyses/{analysis}/engines",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "last-run",
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before)."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "segments",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "none",
          "branded"
        ],
        "description": "branded: also split figures by prompts naming the brand or not."
      }
    ],
    "paging": "single",
    "rows": "items",
    "maxLimit": null
  },
  "listCompetitors": {
    "operationId": "list_competitors",
    "summary": "Competitors ranked over a window",
    "path": "/analyses/{analysis}/competitors",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "last-run",
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before)."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "segments",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "none",
          "branded"
        ],
        "description": "branded: also split figures by prompts naming the brand or not."
      }
    ],
    "paging": "single",
    "rows": "items",
    "maxLimit": null
  },
  "listSources": {
    "operationId": "list_sources",
    "summary": "Cited domains ranked by share of sources",
    "path": "/analyses/{analysis}/sources",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "last-run",
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before)."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "limit",
        "in": "query",
        "required": false,
        "type": "integer",
        "description": "Page size, 1..200."
      }
    ],
    "paging": "single",
    "rows": "items",
    "maxLimit": 200
  },
  "listGroups": {
    "operationId": "list_groups",
    "summary": "Prompt groups with their metrics",
    "path": "/analyses/{analysis}/groups",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "last-run",
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before)."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      }
    ],
    "paging": "single",
    "rows": "items",
    "maxLimit": null
  },
  "listGroupPrompts": {
    "operationId": "list_group_prompts",
    "summary": "Prompts of a group with per-engine metrics",
    "path": "/analyses/{analysis}/groups/{group}/prompts",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "group",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "A group id from list_groups, or none: the prompts in no group."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "last-run",
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before)."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "limit",
        "in": "query",
        "required": false,
        "type": "integer",
        "description": "Page size, 1..200."
      },
      {
        "name": "offset",
        "in": "query",
        "required": false,
        "type": "integer",
        "description": "Prompts to skip, 0..100000."
      }
    ],
    "paging": "offset",
    "rows": "items",
    "maxLimit": 200
  },
  "listPrompts": {
    "operationId": "list_prompts",
    "summary": "List the prompts of an analysis (no metrics)",
    "path": "/analyses/{analysis}/prompts",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      }
    ],
    "paging": "single",
    "rows": "items",
    "maxLimit": null
  },
  "listRuns": {
    "operationId": "list_runs",
    "summary": "List the runs (collections) of an analysis",
    "path": "/analyses/{analysis}/runs",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "limit",
        "in": "query",
        "required": false,
        "type": "integer",
        "description": "Page size, 1..100."
      }
    ],
    "paging": "single",
    "rows": "items",
    "maxLimit": 100
  },
  "getRun": {
    "operationId": "get_run",
    "summary": "Get one run with per-engine progress",
    "path": "/analyses/{analysis}/runs/{run}",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "run",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "A run id from list_runs, or the reserved word `latest`: the most recent run, finished or not."
      }
    ],
    "paging": null,
    "rows": null,
    "maxLimit": null
  },
  "listAnswers": {
    "operationId": "list_answers",
    "summary": "List captured answers (identifiers only, no text)",
    "path": "/analyses/{analysis}/answers",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "window",
        "in": "query",
        "required": false,
        "type": "string",
        "enum": [
          "7d",
          "14d",
          "30d",
          "90d",
          "all"
        ],
        "description": "Measurement window, default 30d. Excludes from/to."
      },
      {
        "name": "from",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "First UTC day, inclusive, 2000-01-01..2099-12-31; with to, at most 366 days."
      },
      {
        "name": "to",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "Last UTC day, inclusive, 2000-01-01..2099-12-31; with from, at most 366 days."
      },
      {
        "name": "limit",
        "in": "query",
        "required": false,
        "type": "integer",
        "description": "Page size, 1..100."
      },
      {
        "name": "cursor",
        "in": "query",
        "required": false,
        "type": "string",
        "description": "next_cursor of the previous page, unchanged (bound to its read, analysis, key and window)."
      }
    ],
    "paging": "cursor",
    "rows": "items",
    "maxLimit": 100
  },
  "getAnswer": {
    "operationId": "get_answer",
    "summary": "Get one answer: text, mentioned brands and cited sources",
    "path": "/analyses/{analysis}/answers/{answer}",
    "params": [
      {
        "name": "analysis",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "Analysis slug or id, from list_analyses."
      },
      {
        "name": "answer",
        "in": "path",
        "required": true,
        "type": "string",
        "description": "An answer id from list_answers."
      }
    ],
    "paging": null,
    "rows": null,
    "maxLimit": null
  }
} as const;

/** One method per read, named as its MCP tool in camelCase. */
export interface ReadMethods {
  /** Describe the calling key: `GET /me` (MCP tool `get_me`). */
  getMe(params?: ReadParams<'getMe'>, options?: CallOptions): Promise<ReadResult<'getMe'>>;
  /** List the analyses the key can read: `GET /analyses` (MCP tool `list_analyses`). */
  listAnalyses(params?: ReadParams<'listAnalyses'>, options?: CallOptions): Promise<ReadResult<'listAnalyses'>>;
  /** Get one analysis: `GET /analyses/{analysis}` (MCP tool `get_analysis`). */
  getAnalysis(params: ReadParams<'getAnalysis'>, options?: CallOptions): Promise<ReadResult<'getAnalysis'>>;
  /** Headline metrics over a window: `GET /analyses/{analysis}/metrics` (MCP tool `get_metrics`). */
  getMetrics(params: ReadParams<'getMetrics'>, options?: CallOptions): Promise<ReadResult<'getMetrics'>>;
  /** Daily series of headline metrics: `GET /analyses/{analysis}/metrics/timeseries` (MCP tool `get_metrics_timeseries`). */
  getMetricsTimeseries(params: ReadParams<'getMetricsTimeseries'>, options?: CallOptions): Promise<ReadResult<'getMetricsTimeseries'>>;
  /** Headline metrics per AI engine: `GET /analyses/{analysis}/engines` (MCP tool `list_engines`). */
  listEngines(params: ReadParams<'listEngines'>, options?: CallOptions): Promise<ReadResult<'listEngines'>>;
  /** Competitors ranked over a window: `GET /analyses/{analysis}/competitors` (MCP tool `list_competitors`). */
  listCompetitors(params: ReadParams<'listCompetitors'>, options?: CallOptions): Promise<ReadResult<'listCompetitors'>>;
  /** Cited domains ranked by share of sources: `GET /analyses/{analysis}/sources` (MCP tool `list_sources`). */
  listSources(params: ReadParams<'listSources'>, options?: CallOptions): Promise<ReadResult<'listSources'>>;
  /** Prompt groups with their metrics: `GET /analyses/{analysis}/groups` (MCP tool `list_groups`). */
  listGroups(params: ReadParams<'listGroups'>, options?: CallOptions): Promise<ReadResult<'listGroups'>>;
  /** Prompts of a group with per-engine metrics: `GET /analyses/{analysis}/groups/{group}/prompts` (MCP tool `list_group_prompts`). */
  listGroupPrompts(params: ReadParams<'listGroupPrompts'>, options?: CallOptions): Promise<ReadResult<'listGroupPrompts'>>;
  /** List the prompts of an analysis (no metrics): `GET /analyses/{analysis}/prompts` (MCP tool `list_prompts`). */
  listPrompts(params: ReadParams<'listPrompts'>, options?: CallOptions): Promise<ReadResult<'listPrompts'>>;
  /** List the runs (collections) of an analysis: `GET /analyses/{analysis}/runs` (MCP tool `list_runs`). */
  listRuns(params: ReadParams<'listRuns'>, options?: CallOptions): Promise<ReadResult<'listRuns'>>;
  /** Get one run with per-engine progress: `GET /analyses/{analysis}/runs/{run}` (MCP tool `get_run`). */
  getRun(params: ReadParams<'getRun'>, options?: CallOptions): Promise<ReadResult<'getRun'>>;
  /** List captured answers (identifiers only, no text): `GET /analyses/{analysis}/answers` (MCP tool `list_answers`). */
  listAnswers(params: ReadParams<'listAnswers'>, options?: CallOptions): Promise<ReadResult<'listAnswers'>>;
  /** Get one answer: text, mentioned brands and cited sources: `GET /analyses/{analysis}/answers/{answer}` (MCP tool `get_answer`). */
  getAnswer(params: ReadParams<'getAnswer'>, options?: CallOptions): Promise<ReadResult<'getAnswer'>>;
}
