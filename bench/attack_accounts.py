"""Attack probes against the accounts of ``kamisado web`` (issue 25, item 1).

Starts a ``kamisado web`` process on a fresh SQLite file (from the code in
``--code``, default this checkout, so the same probes run against an older
tree: ``--code /path/to/old/clone``) and tries, as an attacker would:

1. **Guessing one account from many addresses**: 60 sign-ins with wrong
   passwords against one account, each with a different
   ``X-Forwarded-For`` (uvicorn believes the header from localhost, so
   each is a new address to the per-address limit), without a cookie.
   Counts the answers (401 wrong, 429 refused), then tries the right
   password from yet another address.
2. **Unknown name and wrong password alike**: the answers' bodies, and the
   median time of 5 sign-ins each (the first 4 of a name are below any
   lockout; indicative only on a shared machine).
3. **A cookie copied before sign-out**, used after it: after a plain
   sign-out, after "sign out everywhere" on another device, and after a
   password change on another device.  Prints whether the copy was still
   signed in.

    python bench/attack_accounts.py [--code DIR]

Needs nothing but the standard library (it never imports the code it
probes).  Takes about 20-60 s, most of it argon2id hashing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

COOKIE = "kamisado_player"
UA = "attack-probe/1"


class Browser:
    """One browser: its own cookie, sent and kept like a browser's."""

    def __init__(self, addr: str, name: str) -> None:
        self.addr, self.name = addr, name
        self.cookie: str | None = None

    def request(self, method: str, path: str, body: dict[str, Any] | None = None,
                headers: dict[str, str] | None = None, keep: bool = True) -> tuple[int, Any, dict[str, str]]:
        host, port = self.addr.split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=60)
        sent = {"User-Agent": f"{UA} ({self.name})", **(headers or {})}
        if self.cookie:
            sent["Cookie"] = f"{COOKIE}={self.cookie}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=sent)
        r = conn.getresponse()
        raw = r.read()
        got = {k.lower(): v for k, v in r.getheaders()}
        if keep:
            for k, v in r.getheaders():
                if k.lower() == "set-cookie" and v.startswith(f"{COOKIE}="):
                    value = v.split(";", 1)[0].split("=", 1)[1]
                    self.cookie = None if value == "null" else value
        conn.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode("utf-8", "replace")
        return r.status, parsed, got

    def me(self) -> dict[str, Any]:
        status, body, _ = self.request("GET", "/api/me")
        assert status == 200, (status, body)
        return dict(body)


def start(code: Path, db: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--db", str(db), "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(code),
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1)
    raise SystemExit(f"the server did not start (status {proc.wait()})")


def signed_up(addr: str, name: str, account: str, password: str) -> Browser:
    b = Browser(addr, name)
    b.me()
    status, body, _ = b.request("POST", "/api/signup", {"account": account, "password": password},
                                headers={"X-Forwarded-For": f"192.0.2.{len(name) + 10}"})
    assert status == 200, (status, body)
    return b


def signed_in(addr: str, name: str, account: str, password: str, xff: str) -> Browser:
    b = Browser(addr, name)
    b.me()
    status, body, _ = b.request("POST", "/api/signin", {"account": account, "password": password},
                                headers={"X-Forwarded-For": xff})
    assert status == 200, (status, body)
    return b


def still_signed_in(addr: str, cookie: str | None) -> str:
    """Whether a copied cookie is still signed in (its player, or not)."""
    thief = Browser(addr, "thief")
    thief.cookie = cookie
    me = thief.me()
    return f"signed in as {me['account']}" if me["signed_in"] else "not signed in (a new anonymous player)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the checkout whose kamisado to run (default: this one)")
    ap.add_argument("--guesses", type=int, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kamisado-attack-") as folder:
        proc, addr = start(args.code.resolve(), Path(folder) / "games.sqlite3")
        try:
            return probe(addr, args.guesses)
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def probe(addr: str, guesses: int) -> int:
    print(f"server: {addr}")
    right = "correct horse battery"
    signed_up(addr, "victim", "victim", right)

    # 1. guesses against one account, each from another address
    codes: dict[int, int] = {}
    last_retry = None
    for i in range(guesses):
        status, body, headers = Browser(addr, "guesser").request(
            "POST", "/api/signin", {"account": "victim", "password": f"guess number {i}"},
            headers={"X-Forwarded-For": f"10.{i // 250}.{i % 250}.7"})
        codes[status] = codes.get(status, 0) + 1
        if status == 429:
            last_retry = headers.get("retry-after")
    print(f"1. {guesses} sign-ins against one account, each from another X-Forwarded-For: "
          + ", ".join(f"{n} x {s}" for s, n in sorted(codes.items()))
          + f"; 401 {codes.get(401, 0)}, 429 {codes.get(429, 0)}"
          + (f" (last Retry-After: {last_retry} s)" if last_retry else ""))
    status, body, headers = Browser(addr, "owner").request(
        "POST", "/api/signin", {"account": "victim", "password": right},
        headers={"X-Forwarded-For": "198.51.100.99"})
    print(f"   the right password right after, from a fresh address: {status}"
          + (f" (Retry-After {headers.get('retry-after')} s)" if status == 429 else ""))

    # 2. unknown name and wrong password alike
    signed_up(addr, "timing", "timing", right)
    times: dict[str, list[float]] = {"unknown": [], "wrong": []}
    bodies: dict[str, Any] = {}
    for i in range(4):
        for kind, account in (("unknown", f"nobody{i}"), ("wrong", "timing")):
            t0 = time.perf_counter()
            status, body, _ = Browser(addr, "timer").request(
                "POST", "/api/signin", {"account": account, "password": f"not it {i}"},
                headers={"X-Forwarded-For": f"203.0.113.{i * 2 + (kind == 'wrong') + 1}"})
            times[kind].append((time.perf_counter() - t0) * 1000)
            bodies[kind] = (status, body)
    print(f"2. unknown account: {bodies['unknown'][0]} {json.dumps(bodies['unknown'][1])}, "
          f"median {statistics.median(times['unknown']):.0f} ms; wrong password: "
          f"{bodies['wrong'][0]} {json.dumps(bodies['wrong'][1])}, median {statistics.median(times['wrong']):.0f} ms")

    # 3. a cookie copied before sign-out, used after it
    owner = signed_up(addr, "owner", "owner", right)
    laptop = signed_in(addr, "laptop", "owner", right, "198.51.100.1")
    copied = laptop.cookie
    status, _, _ = laptop.request("POST", "/api/signout", {})
    print(f"3a. cookie copied, then the browser signed out ({status}); the copy: {still_signed_in(addr, copied)}")

    phone = signed_in(addr, "phone", "owner", right, "198.51.100.2")
    copied = phone.cookie
    status, body, _ = owner.request("POST", "/api/signout", {"everywhere": True})
    print(f"3b. cookie copied, then 'sign out everywhere' on another device ({status}); "
          f"the copy: {still_signed_in(addr, copied)}")

    owner = signed_in(addr, "owner again", "owner", right, "198.51.100.3")
    tablet = signed_in(addr, "tablet", "owner", right, "198.51.100.4")
    copied = tablet.cookie
    status, body, _ = owner.request("POST", "/api/password", {"current": right, "password": "a new password!"})
    if status == 200:
        after = still_signed_in(addr, copied)
        mine = "signed in" if owner.me()["signed_in"] else "signed out"
        print(f"3c. cookie copied, then the password changed on another device (200); the copy: {after};"
              f" the device that changed it: {mine}")
    else:
        print(f"3c. password change: not available ({status}); the copy: {still_signed_in(addr, copied)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
