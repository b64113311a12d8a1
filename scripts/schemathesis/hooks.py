"""Schemathesis hooks for cardinald (loaded through SCHEMATHESIS_HOOKS by scripts/schemathesis/run.sh).

- NDJSON bodies: docs/openapi.json describes an `application/x-ndjson` body as a string (one event a line), which
  schemathesis has no serializer for; it goes on the wire as its UTF-8 bytes.
- gzip: the document lets a request say `Content-Encoding: gzip` (or `x-gzip`); a body that says so is compressed,
  as a client would do. Otherwise every such schema-valid request would be an honest 400 `invalid_gzip`.
- A schema-violating event inside `events` is answered 200 with that event in `errors`: the API rejects bad events
  one by one, not the batch (the document says so). The built-in negative check expects a 4xx for the whole request;
  such a failure is dropped only when the request's headers are valid, at least one element of `events` breaks the
  `Event` schema, and the answer lists every such element in `errors` (so none of them was stored).
- A negative case that gives an NDJSON body a type other than string is dropped: on the wire every body is text,
  so "not a string" cannot be sent (its JSON text would be a line like any other, rightly answered 200).
"""
import gzip
import json
import pathlib

import jsonschema
import schemathesis

DOCUMENT = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text())


INTEGER_FORMATS = {"int32": 2**31, "int64": 2**63}


def _json_schema(node):
    """OpenAPI 3.0 as JSON Schema: `nullable: true` is the schema or null; `int32`/`int64` are their ranges."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("format") in INTEGER_FORMATS:
        bound = INTEGER_FORMATS[node["format"]]
        converted.setdefault("minimum", -bound)
        converted.setdefault("maximum", bound - 1)
    if node.get("nullable") is True:
        return {"anyOf": [{"type": "null"}, converted]}
    return converted


EVENT = jsonschema.Draft4Validator(
    {"$ref": "#/components/schemas/Event", "components": _json_schema(DOCUMENT["components"])},
    format_checker=jsonschema.FormatChecker(),
)


ENCODINGS = DOCUMENT["components"]["parameters"]["ContentEncoding"]["schema"]["enum"]


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    if failure.code != "ST201" or response.status_code != 200:
        return True
    headers = {name.lower(): value for name, value in (case.headers or {}).items()}
    if headers.get("content-encoding", "") not in ENCODINGS:
        return True
    if not isinstance(case.body, dict) or not isinstance(case.body.get("events"), list):
        return True
    broken = {index for index, event in enumerate(case.body["events"]) if not EVENT.is_valid(event)}
    rejected = {error["index"] for error in response.json().get("errors", [])}
    return not broken or not broken <= rejected


def _encoded(ctx, data: bytes) -> bytes:
    headers = {name.lower(): value for name, value in (ctx.case.headers or {}).items()}
    if str(headers.get("content-encoding", "")).lower() in ("gzip", "x-gzip"):
        return gzip.compress(data)
    return data


NDJSON = ("application/x-ndjson", "application/ndjson")


@schemathesis.hook
def filter_case(ctx, case):
    return case.media_type not in NDJSON or isinstance(case.body, (str, bytes))


@schemathesis.serializer(*NDJSON)
def ndjson(ctx, value):
    return _encoded(ctx, value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass"))


@schemathesis.serializer("application/json")
def json_body(ctx, value):
    if isinstance(value, bytes):
        return _encoded(ctx, value)
    return _encoded(ctx, json.dumps(value).encode("utf-8", "surrogatepass"))
