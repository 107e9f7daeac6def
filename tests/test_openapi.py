"""The HTTP API's description (kamisado/web/site/openapi.py): it names every
route of the app with the same methods and nothing else, it is valid
OpenAPI 3.1, it is served with its reference, and Schemathesis finds no 500
and no answer outside it on a live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.testclient import TestClient

from kamisado.web.site.openapi import PAGE_PATHS, description
from kamisado.web.site.server import create_app

pytestmark = pytest.mark.xdist_group("openapi")

#: Schemathesis's examples per operation (about 2 s for all on one process; 25 take about 12 s)
EXAMPLES = 5


def app_operations(routes: list[Any], prefix: str = "") -> dict[str, set[str]]:
    """Every HTTP route of the app, mounted ones too (the static files and
    the websocket left out): path -> methods, without the HEAD Starlette
    adds to each GET."""
    out: dict[str, set[str]] = {}
    for r in routes:
        if isinstance(r, Mount):
            if isinstance(r.app, StaticFiles):
                continue
            for path, methods in app_operations(r.routes, prefix + r.path).items():
                out.setdefault(path, set()).update(methods)
        elif isinstance(r, Route):
            out.setdefault(prefix + r.path, set()).update((r.methods or set()) - {"HEAD"})
        else:
            assert isinstance(r, WebSocketRoute), f"an unknown kind of route: {r!r}"
    return out


def test_every_route_described_and_nothing_else() -> None:
    app = create_app("sqlite://", workers=0)
    routes = app_operations(app.routes)
    for page in PAGE_PATHS:
        assert page in routes, f"{page} is left out of the description but is no route"
    api = {p: m for p, m in routes.items() if p not in PAGE_PATHS}
    described = {p: {m.upper() for m in ops} - {"HEAD"} for p, ops in description()["paths"].items()}
    assert sorted(set(api) - set(described)) == [], "routes missing from the description"
    assert sorted(set(described) - set(api)) == [], "described paths that are no route"
    for path, methods in api.items():
        assert described[path] == methods, path
    assert len(described) >= 50


def test_the_description_is_valid_openapi_3_1() -> None:
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    doc = description()
    validate(doc)
    ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))
    broken = description()
    del broken["paths"]["/api/leaderboard"]["get"]["parameters"][0]["in"]
    with pytest.raises(OpenAPIValidationError, match='"in" is a required property'):
        validate(broken)


def test_served_with_its_reference() -> None:
    with TestClient(create_app("sqlite://", workers=0)) as client:
        got = client.get("/api/openapi.json")
        assert got.status_code == 200 and got.json() == description()
        page = client.get("/api/docs")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "http" not in csp.split("connect-src")[0]
        for src in ("/static/apidocs/swagger-ui-bundle.js", "/static/apidocs/swagger-ui.css",
                    "/static/apidocs/start.js"):
            assert f'"{src}"' in page.text
            assert client.get(src).status_code == 200, src
        assert "//" not in page.text.replace("<!doctype", "").split("<body>")[1].replace('="/static', "")


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from kamisado.web.site.live import LiveServer

    before = os.environ.get("KAMISADO_WEB_LIMITS")
    os.environ["KAMISADO_WEB_LIMITS"] = "off"  # read when the app is made (LiveServer.start)
    live = LiveServer(Path(tmp_path_factory.mktemp("openapi")) / "games.sqlite3", workers=1)
    try:
        yield live.start()
    finally:
        live.stop()
        if before is None:
            os.environ.pop("KAMISADO_WEB_LIMITS", None)
        else:
            os.environ["KAMISADO_WEB_LIMITS"] = before


def test_schemathesis_finds_no_500_and_no_answer_outside_the_description(live_url: str) -> None:
    """Schemathesis (a few examples per operation, generated only, the same
    every run: derandomized, so CI never fails by chance) against
    a live server with the rate limits off: every answer is described
    (status, content type, schema) and none is a 500.  The figures:
    docs/web-api.md."""
    import schemathesis
    from hypothesis import HealthCheck, Phase, given, settings
    from schemathesis import checks
    from schemathesis.checks import FailureGroup

    schema = schemathesis.openapi.from_url(live_url + "/api/openapi.json")
    failures: list[str] = []
    operations = calls = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @settings(max_examples=EXAMPLES, deadline=None, database=None, phases=[Phase.generate], derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            nonlocal calls
            calls += 1
            # the Origin rule: a browser's POST from the site itself
            case.headers = {**(case.headers or {}), "Origin": live_url}
            # a busy machine (load 10) once took over the default 10 s for a
            # record upload (a process of the pool): a minute, not a budget
            response = case.call(base_url=live_url, timeout=120)
            case.validate_response(response, checks=[
                checks.not_a_server_error, checks.status_code_conformance,
                checks.content_type_conformance, checks.response_schema_conformance])

        try:
            run()
        except FailureGroup as group:  # every operation's failures, not only the first's
            failures += [f"{operation.method.upper()} {operation.path}: {f}"[:800] for f in group.exceptions]
    # all but GET /api/openapi.json (Schemathesis leaves out the description it read)
    assert operations == sum(len(ops) for ops in description()["paths"].values()) - 1
    assert calls >= operations
    assert failures == []


def test_the_reference_shows_every_operation_from_the_site_alone(live_url: str, chromium_path: str) -> None:
    """``/api/docs`` in a browser, under the site's Content-Security-Policy:
    Swagger UI shows every operation, asks nothing of another site, and
    logs no error (a blocked script or style would)."""
    from playwright.sync_api import sync_playwright

    operations = sum(len(ops) for ops in description()["paths"].values())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            errors: list[str] = []
            asked: list[str] = []
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: asked.append(r.url))
            page.goto(live_url + "/api/docs")
            page.wait_for_function(f"document.querySelectorAll('.opblock').length === {operations}",
                                   timeout=30_000)
            assert page.locator(".opblock-summary-path", has_text="/api/openapi.json").count() == 1
        finally:
            browser.close()
    assert [u for u in asked if not u.startswith(live_url + "/")] == []
    assert errors == []
