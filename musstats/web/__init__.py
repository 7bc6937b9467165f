"""``musstats serve``: a local web page and a JSON API over the Python API.

* :mod:`musstats.web.endpoints` -- one entry per API function: its parameters (the Python
  function's own names), the server's limits and how it is computed;
* :mod:`musstats.web.jobs` -- the worker pool: jobs with progress and cancellation, a small
  cache of identical requests, identical requests in flight computed once;
* :mod:`musstats.web.app` -- the FastAPI application (:func:`create_app`): the page, the API,
  the job API, the offline API reference at ``/docs``;
* ``static/`` -- the page: plain HTML, CSS and one script, no build step.

Importing this package is cheap; FastAPI is imported by :mod:`musstats.web.app` only.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any):
    """The FastAPI application (see :func:`musstats.web.app.create_app`)."""
    from musstats.web.app import create_app as _create

    return _create(*args, **kwargs)
