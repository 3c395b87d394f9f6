"""The client against a running API: every read, paging, each refusal as its typed error, the budget."""

from __future__ import annotations

import unittest
from typing import List

import geo_api
from geo_api import Client, Wait, to_rows

from .support import ANALYSES, BASE_URL, KEYS, fault_url, live


def client(label: str = "workspace", **options) -> Client:
    return Client(api_key=KEYS[label], base_url=BASE_URL, **options)


@live
class Reads(unittest.TestCase):
    def test_get_me_and_the_budget_it_leaves(self) -> None:
        geo = client()
        me = geo.get_me()
        self.assertEqual(me["workspace"]["slug"], "acme")
        self.assertIsNotNone(geo.rate_limit)
        assert geo.rate_limit is not None
        # The body and the headers of one answer state the same budget.
        self.assertEqual(geo.rate_limit.limit, me["rate_limit"]["per_minute"])
        self.assertEqual(geo.rate_limit.remaining, me["rate_limit"]["remaining"])
        self.assertRegex(geo.last_request_id or "", r"^[0-9a-f-]{36}$")

    def test_every_read_answers_through_its_method(self) -> None:
        geo = client()
        slug = ANALYSES["collected"]
        answer_id = geo.list_answers(slug, window="all", limit=1)["items"][0]["id"]
        group_id = geo.list_groups(slug, window="all")["items"][0]["id"]
        calls = {
            "get_me": lambda: geo.get_me(),
            "list_analyses": lambda: geo.list_analyses(limit=2),
            "get_analysis": lambda: geo.get_analysis(slug),
            "get_metrics": lambda: geo.get_metrics(slug, window="30d"),
            "get_metrics_timeseries": lambda: geo.get_metrics_timeseries(slug, window="7d"),
            "list_engines": lambda: geo.list_engines(slug),
            "list_competitors": lambda: geo.list_competitors(slug, window="90d"),
            "list_sources": lambda: geo.list_sources(slug, limit=3),
            "list_groups": lambda: geo.list_groups(slug),
            "list_group_prompts": lambda: geo.list_group_prompts(slug, group_id, limit=2),
            "list_prompts": lambda: geo.list_prompts(slug),
            "list_runs": lambda: geo.list_runs(slug, limit=2),
            "get_run": lambda: geo.get_run(slug, "latest"),
            "list_answers": lambda: geo.list_answers(slug, window="7d", limit=2),
            "get_answer": lambda: geo.get_answer(slug, answer_id),
        }
        self.assertEqual(set(calls), set(geo_api.READS))
        for name, call in calls.items():
            with self.subTest(read=name):
                self.assertIsInstance(call(), dict)
        self.assertEqual(geo.get_answer(slug, answer_id)["id"], answer_id)
        # from/to go by the Python name from_.
        custom = geo.get_metrics(slug, from_="2026-06-01", to="2026-06-07")
        self.assertEqual((custom["context"]["window"]["first_day"], custom["context"]["window"]["last_day"]), ("2026-06-01", "2026-06-07"))

    def test_rows_of_figure_reads(self) -> None:
        geo = client()
        slug = ANALYSES["collected"]
        engines = geo.list_engines(slug, window="30d")
        rows = to_rows(engines)
        self.assertEqual(len(rows), len(engines["items"]))
        self.assertEqual([r["engine.key"] for r in rows], [e["engine"]["key"] for e in engines["items"]])
        self.assertEqual(rows[0]["visibility.value"], engines["items"][0]["visibility"]["value"])
        self.assertEqual(rows[0]["window.name"], "30d")
        series = geo.get_metrics_timeseries(slug, window="7d")
        self.assertEqual([r["day"] for r in to_rows(series)], [p["day"] for p in series["points"]])
        metrics = to_rows(geo.get_metrics(slug, window="7d"))
        self.assertEqual(len(metrics), 1)
        self.assertIn("metrics.visibility.value", metrics[0])

    def test_rows_of_competitors_hold_the_tracked_brand(self) -> None:
        geo = client()
        answer = geo.list_competitors(ANALYSES["collected"], window="30d", segments="branded")
        rows = to_rows(answer)
        self.assertEqual(len(rows), len(answer["items"]) + 1)
        tracked = answer["tracked"]
        self.assertEqual(
            (rows[0]["tracked"], rows[0]["name"], rows[0]["rank"], rows[0]["share_of_voice.value"]),
            (True, tracked["name"], tracked["rank"], tracked["share_of_voice"]["value"]),
        )
        self.assertEqual(rows[0]["segments.branded.share_of_voice.value"], tracked["segments"]["branded"]["share_of_voice"]["value"])
        self.assertEqual([r["name"] for r in rows[1:]], [c["name"] for c in answer["items"]])
        self.assertEqual({r["tracked"] for r in rows[1:]}, {False})
        # Every row carries the window, the tracked brand's too.
        self.assertEqual({r["window.name"] for r in rows}, {"30d"})

    def test_a_base_address_without_api_v1_says_so(self) -> None:
        host = BASE_URL[: -len("/api/v1")] if BASE_URL.endswith("/api/v1") else BASE_URL
        with self.assertRaises(geo_api.NotFound) as caught:
            Client(api_key=KEYS["workspace"], base_url=host).get_me()
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))
        self.assertIn(f"try {host}/api/v1", caught.exception.message)


@live
class Paging(unittest.TestCase):
    def test_every_answer_of_the_largest_analysis_once_and_total_equals_what_was_yielded(self) -> None:
        geo = client()
        sizes = {a["slug"]: geo.list_answers(a["slug"], window="all", limit=1)["total"] for a in geo.paginate("list_analyses")}
        largest = max(sizes, key=lambda slug: sizes[slug])
        pager = geo.paginate("list_answers", analysis=largest, window="all")
        ids = [answer["id"] for answer in pager]
        self.assertGreater(len(ids), 100, "the largest analysis should need several pages of 100")
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(pager.total, len(ids))
        self.assertEqual(sizes[largest], len(ids))
        self.assertEqual(pager.pages, -(-len(ids) // 100))

    def test_small_pages_give_the_same_items(self) -> None:
        geo = client()
        everything = [a["slug"] for a in geo.paginate("list_analyses")]
        pager = geo.paginate("list_analyses", limit=1)
        self.assertEqual([a["slug"] for a in pager], everything)
        self.assertEqual((pager.total, pager.pages), (len(everything), len(everything)))

    def test_offset_paging_of_a_groups_prompts(self) -> None:
        geo = client()
        slug = ANALYSES["collected"]
        groups = geo.list_groups(slug, window="all")["items"]
        group = max(groups, key=lambda g: g["prompts"])["id"]
        whole = geo.list_group_prompts(slug, group, window="all", limit=200)
        pager = geo.paginate("list_group_prompts", analysis=slug, group=group, window="all", limit=1)
        ids = [p["prompt"]["id"] for p in pager]
        self.assertEqual(ids, [p["prompt"]["id"] for p in whole["items"]])
        self.assertEqual(pager.total, len(ids))
        self.assertGreater(len(ids), 1)

    def test_a_single_page_list_is_one_call(self) -> None:
        geo = client()
        pager = geo.paginate("list_engines", analysis=ANALYSES["collected"])
        self.assertEqual(len(list(pager)), pager.total)
        self.assertEqual(pager.pages, 1)

    def test_a_one_page_read_is_asked_its_largest_page_whatever_the_limit(self) -> None:
        # limit=5 is a cut on list_sources itself; under paginate it is a page size, and this read's one
        # page is all a call can reach: every domain the API counts, not the first five.
        geo = client()
        slug = ANALYSES["collected"]
        whole = geo.list_sources(slug, window="30d", limit=200)
        self.assertGreater(whole["total"], 5)
        self.assertFalse(whole["truncated"])
        pager = geo.paginate("list_sources", analysis=slug, window="30d", limit=5)
        domains = [s["domain"] for s in pager]
        self.assertEqual(domains, [s["domain"] for s in whole["items"]])
        self.assertEqual((len(domains), pager.total, pager.pages), (whole["total"], whole["total"], 1))

    def test_a_list_longer_than_any_call_reaches_raises_after_every_item_it_got(self) -> None:
        geo = client()
        slug = ANALYSES["collected"]
        total = geo.list_runs(slug, limit=1)["total"]
        largest = geo.list_runs(slug, limit=100)["items"]
        self.assertGreater(total, 100, "the demo's collected analysis should hold more runs than one page")
        got: List[str] = []
        pager = geo.paginate("list_runs", analysis=slug, limit=2)
        with self.assertRaises(geo_api.IncompleteListError) as caught:
            for run in pager:
                got.append(run["id"])
        error = caught.exception
        self.assertNotIsInstance(error, geo_api.GeoApiError)
        self.assertEqual((error.read, error.yielded, error.total), ("list_runs", 100, total))
        self.assertEqual(got, [r["id"] for r in largest])
        self.assertEqual(len(set(got)), len(got))
        self.assertEqual((pager.yielded, pager.total, pager.pages), (100, total, 1))
        self.assertIn(f"list_runs gave 100 of {total} items", str(error))
        self.assertIn("one page of at most 100", error.reason)


@live
class Refusals(unittest.TestCase):
    def assertRefused(self, error: type, call, code: str, status: int) -> geo_api.GeoApiError:
        with self.assertRaises(error) as caught:
            call()
        got = caught.exception
        self.assertEqual((got.code, got.status), (code, status))
        self.assertRegex(got.request_id or "", r"^[0-9a-f-]{36}$")
        return got

    def test_each_refusal_of_a_live_call_is_its_typed_error(self) -> None:
        geo = client()
        slug = ANALYSES["collected"]
        self.assertRefused(geo_api.Unauthorized, lambda: Client(api_key="not-a-key", base_url=BASE_URL).get_me(), "unauthorized", 401)
        self.assertRefused(geo_api.KeyRevoked, lambda: client("revoked").get_me(), "key_revoked", 401)
        self.assertRefused(geo_api.PlanRequired, lambda: client("plan_without_api").get_me(), "plan_required", 403)
        self.assertRefused(geo_api.AnalysisNotFound, lambda: geo.get_analysis(ANALYSES["other_workspace"]), "analysis_not_found", 404)
        self.assertRefused(geo_api.NotFound, lambda: geo.get_run(slug, "00000000-0000-0000-0000-000000000001"), "not_found", 404)
        invalid = self.assertRefused(geo_api.InvalidRequest, lambda: geo.list_answers(slug, limit=0), "invalid_request", 422)
        self.assertEqual(invalid.param, "limit")
        cursor = geo.list_answers(slug, window="7d", limit=1)["next_cursor"]
        self.assertRefused(geo_api.CursorExpired, lambda: geo.list_answers(slug, window="30d", cursor=cursor), "cursor_expired", 422)

    def test_a_switched_off_api_is_api_disabled_and_not_retried(self) -> None:
        waits: List[Wait] = []
        geo = Client(api_key=KEYS["workspace"], base_url=fault_url("GEO_TEST_DISABLED_URL"), on_wait=waits.append)
        refused = self.assertRefused(geo_api.ApiDisabled, geo.get_me, "api_disabled", 503)
        self.assertEqual(refused.retry_after, 120)
        self.assertEqual(waits, [])

    def test_a_configuration_fault_is_internal_error_and_not_retried(self) -> None:
        waits: List[Wait] = []
        geo = Client(api_key=KEYS["workspace"], base_url=fault_url("GEO_TEST_MISCONFIGURED_URL"), on_wait=waits.append, sleep=lambda s: None)
        self.assertRefused(geo_api.InternalError, geo.get_me, "internal_error", 500)
        self.assertEqual(waits, [])

    def test_a_budget_counter_down_is_retried_once_then_rate_limit_unavailable(self) -> None:
        waits: List[Wait] = []
        geo = Client(
            api_key=KEYS["workspace"], base_url=fault_url("GEO_TEST_BUDGET_DOWN_URL"), max_retries=2, on_wait=waits.append, sleep=lambda s: None
        )
        self.assertRefused(geo_api.RateLimitUnavailable, geo.get_me, "rate_limit_unavailable", 503)
        self.assertEqual([(w.attempt, w.error.code) for w in waits], [(1, "rate_limit_unavailable")])

    def test_a_store_down_is_retried_once_then_upstream_timeout(self) -> None:
        waits: List[Wait] = []
        geo = Client(
            api_key=KEYS["workspace"], base_url=fault_url("GEO_TEST_STORE_DOWN_URL"), max_retries=2, on_wait=waits.append, sleep=lambda s: None
        )
        refused = self.assertRefused(geo_api.UpstreamTimeout, geo.get_me, "upstream_timeout", 503)
        # The wait is what the API asked for (Retry-After), not a guess.
        self.assertEqual([(w.attempt, w.error.code, w.seconds) for w in waits], [(1, "upstream_timeout", float(refused.retry_after or 0))])
        self.assertGreater(waits[0].seconds, 0)


@live
class Budget(unittest.TestCase):
    def test_a_small_budget_waits_retry_after_and_succeeds(self) -> None:
        spender = client("small_budget", max_retries=0)
        with self.assertRaises(geo_api.RateLimited) as caught:
            for _ in range(10):
                spender.get_me()
        refused = caught.exception
        self.assertEqual((refused.code, refused.status), ("rate_limited", 429))
        assert refused.retry_after is not None
        self.assertTrue(1 <= refused.retry_after <= 60)
        assert spender.rate_limit is not None
        self.assertEqual((spender.rate_limit.limit, spender.rate_limit.remaining), (5, 0))

        # Another key of the same workspace shares the spent budget: it waits what the API says, then is served.
        waits: List[Wait] = []
        patient = client("small_budget_2", max_retries=2, on_wait=waits.append)
        me = patient.get_me()
        self.assertEqual(me["workspace"]["slug"], "tinylab")
        self.assertGreaterEqual(len(waits), 1)
        self.assertEqual(waits[0].error.code, "rate_limited")
        self.assertEqual(waits[0].seconds, float(waits[0].error.retry_after or 0))
        assert patient.rate_limit is not None
        self.assertEqual(patient.rate_limit.limit, 5)
        self.assertEqual(patient.rate_limit.remaining, me["rate_limit"]["remaining"])


if __name__ == "__main__":
    unittest.main()
