"""The site as the world sees it: behind a reverse proxy.

Two settings of ``kamisado web`` (docs/deploy.md, "A reverse proxy in front"):

- ``--public-url URL``: the address people use (``https://kamisado.example``).
  The share page's preview (``og:image``, ``og:url``) is built from it,
  never from the request's ``Host`` header, which anyone may forge; without
  it those tags hold paths on this site, nothing taken from the request.
  When it is ``https``, the cookie is ``Secure`` and every answer carries
  ``Strict-Transport-Security``; its origin may post and open the websocket
  even when the proxy rewrites ``Host``.
- ``--forwarded-allow-ips LIST``: the proxies whose ``X-Forwarded-For`` and
  ``X-Forwarded-Proto`` are believed (uvicorn's ``ProxyHeadersMiddleware``):
  the client's address, which the rate limits key on, is then the one the
  proxy saw.  By default no forwarded header is believed, not even from
  localhost: any client could otherwise name any address and slip every
  limit per address.

>>> site = PublicSite.from_url("https://Kamisado.example/")
>>> site.url, site.https, site.absolute("/game/abc")
('https://kamisado.example', True, 'https://kamisado.example/game/abc')
>>> PublicSite().absolute("/game/abc")  # no public URL: a path on this site
'/game/abc'
>>> forwarded_hosts("127.0.0.1, 10.1.2.3/8, ::1")
['127.0.0.1', '10.0.0.0/8', '::1']
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["HSTS", "PublicSite", "forwarded_hosts"]

#: ``Strict-Transport-Security`` behind an https public URL: a year, this
#: host only (other hosts of the domain are not this server's to decide).
HSTS = (b"strict-transport-security", b"max-age=31536000")


@dataclass(frozen=True)
class PublicSite:
    """The public URL (``scheme://host[:port]``, no path), or none."""

    url: str | None = None

    @classmethod
    def from_url(cls, text: str | None) -> PublicSite:
        """A public URL checked: http or https, a host, no path, query or
        fragment (the site is served at the root); ``ValueError`` says why.

        >>> PublicSite.from_url("https://kamisado.example:8443").url
        'https://kamisado.example:8443'
        >>> PublicSite.from_url("kamisado.example")
        Traceback (most recent call last):
        ...
        ValueError: expected an http:// or https:// URL like https://kamisado.example, found 'kamisado.example'
        >>> PublicSite.from_url("https://kamisado.example/play")
        Traceback (most recent call last):
        ...
        ValueError: expected the site's root URL, without a path, found 'https://kamisado.example/play'
        """
        if text is None:
            return cls()
        parts = urlsplit(text.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError(f"expected an http:// or https:// URL like https://kamisado.example, found {text!r}")
        if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"expected the site's root URL, without a path, found {text!r}")
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"expected a port 1-65535 in {text!r}") from None
        host = parts.hostname.lower()
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        default = {"http": 80, "https": 443}[parts.scheme.lower()]
        netloc = host if port in (None, default) else f"{host}:{port}"
        return cls(f"{parts.scheme.lower()}://{netloc}")

    @property
    def https(self) -> bool:
        """Whether people reach the site over HTTPS (cookies ``Secure``, HSTS)."""
        return self.url is not None and self.url.startswith("https://")

    @property
    def origin(self) -> str | None:
        """The site's origin, as a browser sends it in ``Origin``."""
        return self.url

    def absolute(self, path: str) -> str:
        """``path`` (from the site's root) as a link: absolute under the
        public URL, else the path itself (never built from ``Host``)."""
        return path if self.url is None else self.url + path

    @property
    def headers(self) -> tuple[tuple[bytes, bytes], ...]:
        """The headers every answer carries because of the public URL."""
        return (HSTS,) if self.https else ()


def forwarded_hosts(text: str) -> list[str]:
    """``--forwarded-allow-ips``: a comma-separated list of addresses and
    networks (``10.0.0.0/8``), or ``*`` (every peer: only when nothing but
    the proxy can reach the server); ``ValueError`` names a bad item.

    >>> forwarded_hosts("*")
    ['*']
    >>> forwarded_hosts("10.0.0.1, proxy.internal")
    Traceback (most recent call last):
    ...
    ValueError: expected IP addresses or networks (10.0.0.0/8), or *, found 'proxy.internal'
    """
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise ValueError("expected IP addresses or networks (10.0.0.0/8), or *, found nothing")
    if items == ["*"]:
        return items
    hosts = []
    for item in items:
        try:  # a network as uvicorn reads it (10.0.0.1/8 is 10.0.0.0/8; it would not match otherwise)
            hosts.append(str(ipaddress.ip_network(item, strict=False)) if "/" in item
                         else str(ipaddress.ip_address(item)))
        except ValueError:
            raise ValueError(f"expected IP addresses or networks (10.0.0.0/8), or *, found {item!r}") from None
    return hosts
