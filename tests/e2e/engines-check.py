#!/usr/bin/python3
"""Grammar and quoting checks of `leasetrail ... --emit` (tests/e2e/test-engines.sh).

  engines-check.py grammar FILE...      every BigQuery (*/bigquery*/) and Athena file parses:
                                        sqlglot (Debian's python3-sqlglot) reads the query as
                                        BigQuery or Trino SQL, Athena's CREATE TABLE as Hive
  engines-check.py literals ENGINE FILE VALUE
                                        FILE's SQL parses and one of its string literals,
                                        decoded as ENGINE's dialect quotes it, is VALUE
Exit 0 when every check holds, 1 with a line per failure, 77 when sqlglot is missing.
"""
import re
import sys

try:
    import sqlglot
    from sqlglot import exp
except ImportError:
    print("engines-check: python3-sqlglot is not installed (apt-get install python3-sqlglot)",
          file=sys.stderr)
    sys.exit(77)


def statements(text):
    """The SQL statements of an emitted file: comment lines dropped, split after ';' lines."""
    body = "\n".join(l for l in text.splitlines() if not l.startswith("--"))
    return [s.strip() for s in re.split(r";\s*\n", body) if s.strip()]


def parse(engine, stmt):
    dialect = "hive" if stmt.startswith("CREATE EXTERNAL TABLE") else \
        ("bigquery" if engine == "bigquery" else "trino")
    return sqlglot.parse(stmt, read=dialect, error_level=sqlglot.ErrorLevel.RAISE)


def grammar(files):
    bad = 0
    for f in files:
        engine = "bigquery" if "/bigquery" in f else "athena"
        stmts = statements(open(f).read())
        if not stmts:
            print(f"{f}: no SQL statement")
            bad += 1
        for s in stmts:
            try:
                parse(engine, s)
            except Exception as e:  # sqlglot's ParseError and TokenError
                print(f"{f}: does not parse as {engine}: {str(e)[:300]}")
                bad += 1
    return bad


def decode(engine, raw):
    """A literal's value as sqlglot left it, the rest of the dialect's escapes decoded."""
    if engine == "bigquery":  # sqlglot 10 decodes \' and \\ only
        return re.sub(r"\\([nrt])", lambda m: {"n": "\n", "r": "\r", "t": "\t"}[m.group(1)], raw)
    return raw


def literals(engine, path, value):
    text = open(path).read()
    found = []
    for s in statements(text):
        for tree in parse(engine, s):
            for lit in tree.find_all(exp.Literal):
                if lit.is_string:
                    found.append(decode(engine, lit.this))
    # Trino's U&'...' comes through as a prefix U& and the raw body: decode \XXXX
    uni = [re.sub(r"\\([0-9A-F]{4})", lambda m: chr(int(m.group(1), 16)), l) for l in found]
    if value in found or value in uni or any(value in l for l in found + uni):
        return 0
    print(f"{path}: no {engine} string literal decodes to {value!r}; literals: {found!r}")
    return 1


if __name__ == "__main__":
    if sys.argv[1] == "grammar":
        sys.exit(1 if grammar(sys.argv[2:]) else 0)
    sys.exit(literals(sys.argv[2], sys.argv[3], sys.argv[4]))
