"""What the client decides without the API: configuration, the error table, rows, CSV, no answer at all."""

from __future__ import annotations

import http.server
import io
import json
import os
import socket
import threading
import unittest
from pathlib import Path
from unittest import mock

import geo_api
from geo_api import Client, GeoApiError, NetworkError, Wait, flatten, to_csv, to_rows
from geo_api.errors import error_for


def closed_port() -> int:
    """A local port nothing listens on: bound, then released."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Configuration(unittest.TestCase):
    def test_key_and_base_from_the_environment(self) -> None:
        with mock.patch.dict(os.environ, {"GEO_API_KEY": "geo_live_x", "GEO_BASE_URL": "http://127.0.0.1:1/api/v1/"}):
            client = Client()
        self.assertEqual(client.base_url, "http://127.0.0.1:1/api/v1")
        self.assertIsNone(client.rate_limit)

    def test_no_key_or_no_base_is_refused_before_any_call(self) -> None:
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaisesRegex(ValueError, "GEO_API_KEY"):
                Client(base_url="http://x/api/v1")
            with self.assertRaisesRegex(ValueError, "GEO_BASE_URL"):
                Client(api_key="geo_live_x")

    def test_one_method_per_read_named_as_the_mcp_tool(self) -> None:
        client = Client(api_key="k", base_url="http://x")
        for name in geo_api.READS:
            self.assertTrue(callable(getattr(client, name)), name)
        # The reads of the repository's own document: every operation that is also an MCP tool.
        document = json.loads((Path(__file__).resolve().parents[3] / "openapi" / "openapi.json").read_text(encoding="utf-8"))
        tools = [
            op["operationId"] for item in document["paths"].values() for op in item.values() if "MCP tool: `" in op.get("description", "")
        ]
        self.assertEqual(sorted(geo_api.READS), sorted(tools))

    def test_paginate_refuses_what_is_not_a_list_or_not_a_parameter(self) -> None:
        client = Client(api_key="k", base_url="http://x")
        with self.assertRaisesRegex(ValueError, "not a list read"):
            client.paginate("get_me")
        with self.assertRaisesRegex(ValueError, "no read named"):
            client.paginate("list_everything")
        with self.assertRaisesRegex(TypeError, "takes no parameter 'windw'"):
            client.paginate("list_answers", analysis="a", windw="7d")


class Errors(unittest.TestCase):
    def test_every_code_of_the_document_has_its_class_and_status(self) -> None:
        self.assertEqual(set(geo_api.ERROR_CLASSES), set(geo_api.ERROR_CODES))
        for code, status in geo_api.ERROR_CODES.items():
            error = error_for(code, "m", status=status, param="limit", request_id="r", retry_after=3)
            self.assertIs(type(error), geo_api.ERROR_CLASSES[code])
            self.assertIsInstance(error, GeoApiError)
            self.assertEqual((error.code, error.status, error.param, error.request_id, error.retry_after), (code, status, "limit", "r", 3))

    def test_a_code_this_client_does_not_know_is_still_a_geo_api_error(self) -> None:
        error = error_for("new_code", "m", status=418)
        self.assertIs(type(error), GeoApiError)
        self.assertEqual(error.code, "new_code")


class NoAnswer(unittest.TestCase):
    def test_a_network_fault_is_retried_once_with_a_visible_wait_then_raised(self) -> None:
        waits: list[Wait] = []
        slept: list[float] = []
        client = Client(
            api_key="geo_live_x",
            base_url=f"http://127.0.0.1:{closed_port()}/api/v1",
            timeout=2,
            max_retries=5,
            on_wait=waits.append,
            sleep=slept.append,
        )
        with self.assertRaises(NetworkError) as caught:
            client.get_me()
        self.assertEqual((caught.exception.code, caught.exception.status), ("network_error", None))
        self.assertEqual([(w.read, w.attempt, w.error.code) for w in waits], [("get_me", 1, "network_error")])
        self.assertEqual(slept, [waits[0].seconds])
        self.assertGreater(waits[0].seconds, 0)

    def test_max_retries_zero_never_waits(self) -> None:
        waits: list[Wait] = []
        client = Client(api_key="k", base_url=f"http://127.0.0.1:{closed_port()}", max_retries=0, on_wait=waits.append)
        with self.assertRaises(NetworkError):
            client.get_me()
        self.assertEqual(waits, [])


class Gateway(unittest.TestCase):
    """A gateway's own page in front of the API (a real local HTTP server answering as one would)."""

    def serve(self, answers: list) -> str:
        queue = list(answers)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                status, body = queue.pop(0)
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status == 200 else "text/html")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return f"http://127.0.0.1:{server.server_address[1]}/api/v1"

    def test_a_gateway_502_is_retried_once_then_served(self) -> None:
        waits: list[Wait] = []
        base = self.serve([(502, b"<html>Bad Gateway</html>"), (200, b'{"ok": true}')])
        client = Client(api_key="k", base_url=base, on_wait=waits.append, sleep=lambda s: None)
        self.assertEqual(client.get_me(), {"ok": True})
        self.assertEqual([(w.error.code, w.error.status) for w in waits], [("unexpected_response", 502)])

    def test_a_base_address_without_api_v1_gets_a_hint_on_no_such_endpoint(self) -> None:
        body = b'{"error": {"code": "not_found", "message": "No such endpoint.", "request_id": "r"}}'
        host = self.serve([(404, body), (404, body)])[: -len("/api/v1")]
        with self.assertRaises(geo_api.NotFound) as caught:
            Client(api_key="k", base_url=host + "/").get_me()
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))
        self.assertEqual(caught.exception.message, f"No such endpoint. The base URL {host} does not end with /api/v1, as the API's base address does: try {host}/api/v1.")
        # Under /api/v1 the same answer is a path of the API that does not exist: no hint to give.
        with self.assertRaises(geo_api.NotFound) as caught:
            Client(api_key="k", base_url=host + "/api/v1").get_me()
        self.assertEqual(caught.exception.message, "No such endpoint.")

    def test_two_gateway_504_in_a_row_are_an_unexpected_response(self) -> None:
        base = self.serve([(504, b"timeout"), (504, b"timeout"), (200, b"{}")])
        client = Client(api_key="k", base_url=base, max_retries=5, sleep=lambda s: None)
        with self.assertRaises(geo_api.UnexpectedResponse) as caught:
            client.get_me()
        self.assertEqual((caught.exception.code, caught.exception.status), ("unexpected_response", 504))


class Rows(unittest.TestCase):
    ANSWER = {
        "context": {"window": {"name": "30d", "first_day": "2026-06-01", "last_day": "2026-06-30", "days": 30}},
        "items": [
            {"engine": {"key": "chatgpt", "name": "ChatGPT"}, "visibility": {"value": 0.5, "ci95": {"low": 0.1, "high": 0.9}}, "tags": ["a", "é"]},
            {"engine": {"key": "gemini", "name": "Gemini"}, "visibility": {"value": None, "ci95": None}, "tags": []},
        ],
        "next_cursor": None,
        "truncated": False,
        "total": 2,
    }

    def test_items_become_flat_rows_with_the_window(self) -> None:
        rows = to_rows(self.ANSWER)
        self.assertEqual(
            rows[0],
            {
                "window.name": "30d",
                "window.first_day": "2026-06-01",
                "window.last_day": "2026-06-30",
                "engine.key": "chatgpt",
                "engine.name": "ChatGPT",
                "visibility.value": 0.5,
                "visibility.ci95.low": 0.1,
                "visibility.ci95.high": 0.9,
                "tags": '["a","é"]',
            },
        )
        self.assertEqual(rows[1]["visibility.ci95"], None)

    def test_a_list_of_objects_becomes_columns_named_by_each_element(self) -> None:
        answer = {"items": [{"prompt": {"id": "p1"}, "engines": [{"engine": {"key": "chatgpt"}, "v": 1}, {"engine": {"key": "gemini"}, "v": 2}]}]}
        self.assertEqual(
            to_rows(answer),
            [{"prompt.id": "p1", "engines.chatgpt.engine.key": "chatgpt", "engines.chatgpt.v": 1, "engines.gemini.engine.key": "gemini", "engines.gemini.v": 2}],
        )

    def test_explode_makes_a_row_per_element(self) -> None:
        answer = {"items": [{"prompt": {"id": "p1"}, "engines": [{"engine": "a", "v": 1}, {"engine": "b", "v": 2}]}]}
        self.assertEqual(
            to_rows(answer, explode="engines"),
            [{"prompt.id": "p1", "engines.engine": "a", "engines.v": 1}, {"prompt.id": "p1", "engines.engine": "b", "engines.v": 2}],
        )

    def test_a_single_object_is_one_row_without_its_context(self) -> None:
        self.assertEqual(to_rows({"context": {}, "metrics": {"answers": 3}}), [{"metrics.answers": 3}])
        self.assertEqual(flatten({"a": {"b": {"c": 1}}}, sep="__"), {"a__b__c": 1})

    def test_the_tracked_brand_is_the_first_row_of_the_competitors_in_their_columns(self) -> None:
        window = {"name": "30d", "first_day": "2026-06-01", "last_day": "2026-06-30", "days": 30}
        answer = {
            "context": {"window": window},
            "tracked": {"name": "Acme", "rank": 1, "share_of_voice": {"value": 0.3}, "segments": None},
            "items": [
                {"name": "Initech", "kind": "direct", "domain": "initech.com", "rank": 2, "share_of_voice": {"value": 0.2}, "segments": None},
                {"name": "Hooli", "kind": "indirect", "domain": None, "rank": 3, "share_of_voice": {"value": 0.1}, "segments": None},
            ],
            "next_cursor": None,
            "truncated": False,
            "total": 2,
        }
        rows = to_rows(answer)
        self.assertEqual([(r["tracked"], r["name"], r["rank"], r["share_of_voice.value"]) for r in rows], [(True, "Acme", 1, 0.3), (False, "Initech", 2, 0.2), (False, "Hooli", 3, 0.1)])
        head = ["window.name", "window.first_day", "window.last_day", "tracked"]
        self.assertEqual(list(rows[0]), head + ["name", "kind", "domain", "rank", "share_of_voice.value", "segments"])
        self.assertEqual((rows[0]["kind"], rows[0]["domain"]), (None, None))
        out = io.StringIO(newline="")
        to_csv(rows, out)
        self.assertEqual(out.getvalue().split("\r\n")[1], "30d,2026-06-01,2026-06-30,true,Acme,,,1,0.3,")

    def test_a_list_of_items_is_a_row_each_without_a_window(self) -> None:
        self.assertEqual(to_rows([{"id": "a", "n": {"v": 1}}, {"id": "b", "n": {"v": 2}}]), [{"id": "a", "n.v": 1}, {"id": "b", "n.v": 2}])

    def test_csv_numbers_are_written_as_javascript_writes_them(self) -> None:
        # The TypeScript client's CSV writes String(x): the same bytes here for the same answer.
        out = io.StringIO(newline="")
        to_csv([{"delta": -3.9e-05, "whole": 1.0, "tiny": 1.5e-07, "big": 1e21, "n": 7, "p": 0.233946}], out)
        self.assertEqual(out.getvalue(), "delta,whole,tiny,big,n,p\r\n-0.000039,1,1.5e-7,1e+21,7,0.233946\r\n")

    def test_csv_has_every_column_and_empty_cells_for_none(self) -> None:
        out = io.StringIO(newline="")
        self.assertEqual(to_csv([{"a": 1, "b": None}, {"a": 2.5, "c": "x,y", "d": True}], out), 2)
        self.assertEqual(out.getvalue(), 'a,b,c,d\r\n1,,,\r\n2.5,,"x,y",true\r\n')

    def test_csv_an_object_null_in_one_row_gives_its_leaves_not_a_column_of_its_own(self) -> None:
        # A series' first day has change None, the next its dotted columns: the leaves stand in its place.
        out = io.StringIO(newline="")
        rows = [{"day": "d1", "change": None, "n": 1}, {"day": "d2", "change.delta": 0.5, "change.p_value": 0.2, "n": 2}]
        to_csv(rows, out)
        self.assertEqual(out.getvalue(), "day,change.delta,change.p_value,n\r\nd1,,,1\r\nd2,0.5,0.2,2\r\n")

    def test_csv_never_hands_a_spreadsheet_a_formula(self) -> None:
        out = io.StringIO(newline="")
        to_csv([{"text": '=HYPERLINK("x")', "n": -1, "url": "@evil", "ok": "a-b"}], out)
        self.assertEqual(out.getvalue(), 'text,n,url,ok\r\n"\'=HYPERLINK(""x"")",-1,\'@evil,a-b\r\n')


if __name__ == "__main__":
    unittest.main()
