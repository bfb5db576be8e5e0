#!/usr/bin/env python3
"""Checks airloc's JSON documents against the JSON Schemas in docs/schema/ (draft 2020-12).

  json-schema-check.py FILE...        validate each file (one document, or one per line)
  json-schema-check.py --serve        read one compact document per line on stdin, answer
                                      "ok" or "invalid: ..." per line (the test harness)
  json-schema-check.py --docs MD      check that docs/json-schema.md names every key the
                                      schemas define (the prose and the schemas agree)

A document is checked against the schema its `schema` key names; a failure document
(only `schema` and `error`) against failure.schema.json. Documents nested in others (the
`report` of `postal --air`) are checked against their own schemas too. Exit 0 when all
is well, 65 otherwise.
"""
import json
import os
import re
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, "..", "docs", "schema")
NAME = re.compile(r"^airloc\.[a-z-]+/[0-9]+$")


def load():
    schemas = {}
    for entry in sorted(os.listdir(SCHEMA_DIR)):
        if entry.endswith(".schema.json"):
            with open(os.path.join(SCHEMA_DIR, entry), encoding="utf-8") as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            schemas[entry] = schema
    return schemas


def validators(schemas):
    by_id = {s["$id"]: s for s in schemas.values()}
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        registry = Registry().with_resources((i, Resource.from_contents(s)) for i, s in by_id.items())

        def make(schema):
            return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:  # Debian's jsonschema 4.10
        def make(schema):
            resolver = jsonschema.RefResolver(schema["$id"], schema, store=by_id)
            return jsonschema.Draft202012Validator(schema, resolver=resolver)
    named = {s["title"]: make(s) for s in schemas.values() if NAME.match(s.get("title", ""))}
    return named, make(schemas["failure.schema.json"])


def problems(document, named, failure, where="$"):
    if not isinstance(document, dict):
        return [f"{where}: not a JSON object"]
    name = document.get("schema")
    if not isinstance(name, str) or not NAME.match(name):
        return [f"{where}: no airloc schema name in 'schema' ({name!r})"]
    if set(document) == {"schema", "error"}:
        validator = failure
    elif name in named:
        validator = named[name]
    else:
        return [f"{where}: no schema file for {name}"]
    found = [f"{where}{''.join(f'[{p!r}]' for p in e.absolute_path)}: {e.message} ({name})"
             for e in validator.iter_errors(document)]
    for path, nested in nested_documents(document, where):
        found += problems(nested, named, failure, path)
    return found


def nested_documents(value, where, root=True):
    if isinstance(value, dict):
        if not root and isinstance(value.get("schema"), str) and NAME.match(value["schema"]):
            yield where, value
            return
        for key, item in value.items():
            yield from nested_documents(item, f"{where}.{key}", False)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from nested_documents(item, f"{where}[{index}]", False)


def check_docs(path, schemas):
    text = open(path, encoding="utf-8").read()
    sections = re.split(r"^## ", text, flags=re.M)
    missing = []
    for entry, schema in schemas.items():
        title = schema.get("title", "")
        if entry == "common.schema.json":
            continue
        if entry == "failure.schema.json":
            section = next((s for s in sections if s.startswith("Failures")), None)
        else:
            section = next((s for s in sections if f"schema `{title}`" in s.splitlines()[0]), None)
        if section is None:
            missing.append(f"{path}: no section for {title} ({entry})")
            continue
        quoted = " ".join(re.findall(r"`([^`]*)`", section))
        for key, sub in dict.fromkeys(keys(schema, schemas)):
            if key == "schema":
                continue  # the section's heading names it
            if not re.search(rf"(^|[^a-z0-9_]){re.escape(key)}([^a-z0-9_]|$)", quoted):
                missing.append(f"{path}: the {title} section does not name `{key}`" + (f" (in {sub})" if sub else ""))
    return missing


def keys(schema, schemas, depth=0, parent=""):
    """Property names of a schema (of each of its `oneOf` shapes) and, one level down,
    of its inline objects."""
    for shape in schema.get("oneOf", []):
        yield from keys(shape, schemas, depth, parent)
    for key, sub in schema.get("properties", {}).items():
        yield key, parent
        if depth == 0:
            for inner in [sub] + sub.get("anyOf", []) + [sub.get("items", {})]:
                if "properties" in inner:
                    yield from keys(inner, schemas, 1, key)
                elif "items" in inner and "properties" in inner["items"]:
                    yield from keys(inner["items"], schemas, 1, key)


def main(argv):
    schemas = load()
    if argv[:1] == ["--docs"]:
        missing = check_docs(argv[1], schemas)
        for line in missing:
            print(line)
        return 65 if missing else 0
    named, failure = validators(schemas)
    if argv[:1] == ["--serve"]:
        print("ready", flush=True)
        for line in sys.stdin:
            try:
                found = problems(json.loads(line), named, failure)
            except ValueError as error:
                found = [f"not JSON: {error}"]
            print("ok" if not found else "invalid: " + " | ".join(found)[:4000], flush=True)
        return 0
    bad = 0
    for path in argv:
        text = open(path, encoding="utf-8").read()
        try:
            documents = [json.loads(text)]
        except ValueError:
            documents = [json.loads(line) for line in text.splitlines() if line.strip()]
        for document in documents:
            for problem in problems(document, named, failure):
                print(f"{path}: {problem}")
                bad += 1
    return 65 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
