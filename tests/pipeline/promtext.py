#!/usr/bin/env python3
"""promtext.py — a strict parser of Prometheus' text exposition format (version 0.0.4), for the
tests: it rejects what a scraper would choke on or silently misread, and checks histograms.

  parse(text) -> {family: {"type", "help", "samples": [(name, {label: value}, float)]}}

Checked: line syntax (metric and label names, quoted label values with only \\\\, \\" and \\n
escapes, a float value, an optional integer timestamp); at most one HELP and one TYPE per family,
TYPE before its samples; every sample belongs to a declared family (histogram samples are
<family>_bucket / _sum / _count); samples of a family contiguous; no duplicate series; for
histograms: every series has an le="+Inf" bucket, le values parse and are strictly increasing,
bucket counts are monotone (cumulative), +Inf equals _count, _sum present, no 'le' outside _bucket.
Raises ValueError naming the line.

Used as a program: promtext.py FILE [FAMILY...] parses FILE and requires each FAMILY.
"""
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def parse_value(s, where):
    if s in ("+Inf", "Inf"):
        return math.inf
    if s == "-Inf":
        return -math.inf
    if s == "NaN":
        return math.nan
    if not re.fullmatch(r'[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?', s):
        raise ValueError("%s: value %r is not a float" % (where, s))
    return float(s)


def parse_labels(s, i, where):
    """s[i] == '{'; returns (labels, index after '}')."""
    labels, i = {}, i + 1
    while True:
        if s[i] == '}':
            return labels, i + 1
        m = LABEL.match(s, i)
        if not m:
            raise ValueError("%s: bad label name at column %d" % (where, i))
        name, i = m.group(0), m.end()
        if s[i:i + 2] != '="':
            raise ValueError("%s: label %s: expected =\"" % (where, name))
        i, val = i + 2, []
        while s[i] != '"':
            if s[i] == '\\':
                esc = s[i + 1]
                if esc not in '\\"n':
                    raise ValueError("%s: label %s: bad escape \\%s" % (where, name, esc))
                val.append('\n' if esc == 'n' else esc)
                i += 2
            elif s[i] == '\n':
                raise ValueError("%s: label %s: raw newline" % (where, name))
            else:
                val.append(s[i])
                i += 1
        i += 1
        if name in labels:
            raise ValueError("%s: label %s twice" % (where, name))
        labels[name] = ''.join(val)
        if s[i] == ',':
            i += 1
        elif s[i] != '}':
            raise ValueError("%s: expected , or } after label %s" % (where, name))


def family_of(name, fams):
    if name in fams:
        return name
    for suf in ("_bucket", "_sum", "_count"):
        base = name[:-len(suf)] if name.endswith(suf) else None
        if base and base in fams and fams[base]["type"] in ("histogram", "summary"):
            return base
    return None


def parse(text):
    if text and not text.endswith('\n'):
        raise ValueError("exposition does not end with a newline")
    fams, order, series, last_fam = {}, [], set(), None
    for n, line in enumerate(text.split('\n')[:-1], 1):
        where = "line %d (%r)" % (n, line[:80])
        if not line.strip():
            continue
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 2 and parts[1] in ("HELP", "TYPE"):
                if len(parts) < 3 or not NAME.fullmatch(parts[2]):
                    raise ValueError("%s: %s without a valid metric name" % (where, parts[1]))
                f = fams.setdefault(parts[2], {"type": None, "help": None, "samples": []})
                key = parts[1].lower()
                if f[key] is not None:
                    raise ValueError("%s: second %s for %s" % (where, parts[1], parts[2]))
                if key == "type":
                    if f["samples"]:
                        raise ValueError("%s: TYPE after samples of %s" % (where, parts[2]))
                    if len(parts) < 4 or parts[3] not in TYPES:
                        raise ValueError("%s: unknown type" % where)
                    f["type"] = parts[3]
                else:
                    f["help"] = parts[3] if len(parts) > 3 else ""
            continue
        m = NAME.match(line)
        if not m:
            raise ValueError("%s: bad metric name" % where)
        name, i = m.group(0), m.end()
        labels = {}
        if i < len(line) and line[i] == '{':
            try:
                labels, i = parse_labels(line, i, where)
            except IndexError:
                raise ValueError("%s: labels not closed" % where) from None
        rest = line[i:].split(' ')
        if not rest or rest[0] != '' or len(rest) not in (2, 3):
            raise ValueError("%s: expected one space, a value and an optional timestamp" % where)
        value = parse_value(rest[1], where)
        if len(rest) == 3 and not re.fullmatch(r'-?\d+', rest[2]):
            raise ValueError("%s: bad timestamp" % where)
        fam = family_of(name, fams)
        if fam is None or fams[fam]["type"] is None:
            raise ValueError("%s: sample of %s without a TYPE line before it" % (where, name))
        if fam != last_fam:
            if fam in order:
                raise ValueError("%s: samples of %s are not contiguous" % (where, fam))
            order.append(fam)
            last_fam = fam
        if "le" in labels and not name.endswith("_bucket"):
            raise ValueError("%s: le label outside a _bucket sample" % where)
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            raise ValueError("%s: duplicate series" % where)
        series.add(key)
        fams[fam]["samples"].append((name, labels, value))
    for fam, f in fams.items():
        if f["type"] == "histogram":
            check_histogram(fam, f["samples"])
    return fams


def check_histogram(fam, samples):
    groups = {}
    for name, labels, value in samples:
        rest = tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
        g = groups.setdefault(rest, {"buckets": [], "sum": None, "count": None})
        if name == fam + "_bucket":
            if "le" not in labels:
                raise ValueError("%s%s: bucket without le" % (fam, dict(rest)))
            g["buckets"].append((parse_value(labels["le"], "%s le" % fam), value))
        elif name == fam + "_sum":
            g["sum"] = value
        elif name == fam + "_count":
            g["count"] = value
        else:
            raise ValueError("%s: sample %s is not _bucket/_sum/_count" % (fam, name))
    for rest, g in groups.items():
        what = "%s%s" % (fam, dict(rest))
        b = g["buckets"]
        if not b or b[-1][0] != math.inf:
            raise ValueError("%s: no le=\"+Inf\" bucket last" % what)
        for (l0, c0), (l1, c1) in zip(b, b[1:]):
            if not l1 > l0:
                raise ValueError("%s: le %g then %g: not increasing" % (what, l0, l1))
            if c1 < c0:
                raise ValueError("%s: bucket le=%g has %g < %g of le=%g (not cumulative)" % (what, l1, c1, c0, l0))
        if g["count"] is None or g["sum"] is None:
            raise ValueError("%s: _sum or _count missing" % what)
        if b[-1][1] != g["count"]:
            raise ValueError("%s: +Inf bucket %g != _count %g" % (what, b[-1][1], g["count"]))
        if g["count"] and g["sum"] < 0:
            raise ValueError("%s: negative _sum of durations" % what)


if __name__ == "__main__":
    fams = parse(open(sys.argv[1]).read())
    for want in sys.argv[2:]:
        if want not in fams:
            sys.exit("family %s missing" % want)
    print("%d families OK" % len(fams))
