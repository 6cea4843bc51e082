"""A small JSON Schema validator for the subset schema/extension-protocol.schema.json uses.

Supported: $ref (local, "#/..."), $defs, type (a name or a list), const, enum, required,
properties, additionalProperties, items, anyOf, oneOf, allOf, minimum, maximum, minLength,
maxLength, minItems, maxItems. Annotations (title, description, $schema, $id, $comment,
default, examples) are ignored. Any other keyword raises UnsupportedKeyword, so that a schema
growing a new rule cannot pass here unchecked.
"""
import json
import os

ANNOTATIONS = {"title", "description", "$schema", "$id", "$comment", "default", "examples", "$defs"}
SCHEMA_FILE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "extension-protocol.schema.json"
)


class UnsupportedKeyword(Exception):
    pass


def _is_type(value, name):
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer()
        )
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    raise UnsupportedKeyword("type %r" % name)


def _equal(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class Validator:
    """`closed`: an object schema naming properties, without `additionalProperties`, takes no
    other field, so a frame field the SDK misnames (or the protocol renames) is a problem here.
    An empty `properties` is any object (a tool's JSON Schema) and stays open."""

    def __init__(self, document, closed=False):
        self.document = document
        self.closed = closed

    def resolve(self, ref):
        if not ref.startswith("#"):
            raise UnsupportedKeyword("remote $ref %r" % ref)
        node = self.document
        for part in ref[1:].split("/")[1:]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def errors(self, value, schema, path="$"):
        """A list of problems (empty when `value` conforms)."""
        if schema is True or schema == {}:
            return []
        if schema is False:
            return ["%s: no value is allowed here" % path]
        problems = []
        for key, rule in schema.items():
            if key in ANNOTATIONS:
                continue
            if key == "$ref":
                problems += self.errors(value, self.resolve(rule), path)
            elif key == "type":
                names = rule if isinstance(rule, list) else [rule]
                if not any(_is_type(value, name) for name in names):
                    problems.append("%s: expected %s, got %s" % (path, "/".join(names), json.dumps(value)[:80]))
            elif key == "const":
                if not _equal(value, rule):
                    problems.append("%s: expected %s" % (path, json.dumps(rule)))
            elif key == "enum":
                if not any(_equal(value, option) for option in rule):
                    problems.append("%s: not one of %s" % (path, json.dumps(rule)))
            elif key == "required":
                if isinstance(value, dict):
                    problems += ["%s: missing %r" % (path, name) for name in rule if name not in value]
            elif key == "properties":
                if isinstance(value, dict):
                    for name, sub in rule.items():
                        if name in value:
                            problems += self.errors(value[name], sub, "%s.%s" % (path, name))
            elif key == "additionalProperties":
                if isinstance(value, dict):
                    known = schema.get("properties", {})
                    for name in value:
                        if name not in known:
                            problems += self.errors(value[name], rule, "%s.%s" % (path, name))
            elif key == "items":
                if isinstance(value, list):
                    for index, item in enumerate(value):
                        problems += self.errors(item, rule, "%s[%d]" % (path, index))
            elif key == "anyOf":
                branches = [self.errors(value, sub, path) for sub in rule]
                if all(branches):
                    problems.append("%s: matches none of anyOf (%s)" % (path, _closest(branches)))
            elif key == "oneOf":
                branches = [self.errors(value, sub, path) for sub in rule]
                matched = sum(1 for branch in branches if not branch)
                if matched != 1:
                    problems.append("%s: matches %d of oneOf (%s)" % (path, matched, _closest(branches)))
            elif key == "allOf":
                for sub in rule:
                    problems += self.errors(value, sub, path)
            elif key in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"):
                problems += _bound(key, rule, value, path)
            else:
                raise UnsupportedKeyword(key)
        if self.closed and isinstance(value, dict) and schema.get("properties"):
            if "additionalProperties" not in schema:
                known = schema["properties"]
                problems += ["%s: unknown field %r" % (path, name) for name in value if name not in known]
        return problems


def _closest(branches):
    failing = [branch for branch in branches if branch]
    return min(failing, key=len)[0] if failing else "several matched"


def _bound(key, limit, value, path):
    if key in ("minimum", "maximum") and isinstance(value, (int, float)) and not isinstance(value, bool):
        measure = value
    elif key in ("minLength", "maxLength") and isinstance(value, str):
        measure = len(value)
    elif key in ("minItems", "maxItems") and isinstance(value, list):
        measure = len(value)
    else:
        return []
    if key.startswith("min") and measure < limit or key.startswith("max") and measure > limit:
        return ["%s: %s %s" % (path, key, limit)]
    return []


_protocol = None
_closed = None


def protocol():
    """The validator for the repository's protocol schema, or None outside the repository."""
    global _protocol, _closed
    if _protocol is None and os.path.exists(SCHEMA_FILE):
        with open(SCHEMA_FILE, encoding="utf-8") as handle:
            document = json.load(handle)
        _protocol = Validator(document)
        _closed = Validator(document, closed=True)
    return _protocol


def frame_problems(frame, direction):
    """Problems of a frame sent by 'extension' or by 'host' against the protocol schema. What the
    SDK writes is checked closed: every field it names must be one the schema (generated from
    the protocol's TypeBox definitions) names too."""
    validator = protocol()
    if direction == "extension":
        validator = _closed
    definition = "FrameFromExtension" if direction == "extension" else "FrameFromHost"
    return validator.errors(frame, {"$ref": "#/$defs/" + definition})


def has_frame_type(direction, frame_type):
    """Whether the schema knows frames of `frame_type` in that direction."""
    validator = protocol()
    definition = "FrameFromExtension" if direction == "extension" else "FrameFromHost"
    for branch in validator.resolve("#/$defs/" + definition).get("oneOf", []):
        target = validator.resolve(branch["$ref"]) if "$ref" in branch else branch
        if target.get("properties", {}).get("type", {}).get("const") == frame_type:
            return True
    return False
