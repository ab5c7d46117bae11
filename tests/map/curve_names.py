#!/usr/bin/env python3
"""The curve naming rule of docs/DESIGN.md ("common/ — arithmetic"): BLS12-381, the first curve, is
unprefixed; every other curve's arithmetic in common/ is named zp_<curve>_<module>_<op> (ZP_<CURVE>_...
for its constants), so one macro builds a curve's ops from its prefix (curve.c: zp_##T##msm_g1). The
exceptions are the curve module's own names for each curve: its tables zp_curve_<curve> and ids
ZP_CURVE_<CURVE>. This fails naming each file and identifier that puts the curve elsewhere
(zp_msm_bn254_g1 where the rule says zp_bn254_msm_g1).
Usage: curve_names.py [ROOT]"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
CURVES = ["bn254"]  # every curve but BLS12-381

bad = []
common = os.path.join(ROOT, "common")
for name in sorted(os.listdir(common)):
    if not name.endswith((".c", ".h")):
        continue
    text = open(os.path.join(common, name), encoding="utf-8", errors="replace").read()
    for c in CURVES:
        for ident in sorted(set(re.findall(r"\bzp_\w*%s\w*" % c, text))):
            if not ident.startswith("zp_%s_" % c) and ident != "zp_curve_%s" % c:
                bad.append("common/%s: %s (the rule: zp_%s_<module>_<op>)" % (name, ident, c))
        C = c.upper()
        for ident in sorted(set(re.findall(r"\bZP_\w*%s\w*" % C, text))):
            if not ident.startswith("ZP_%s_" % C) and ident != "ZP_CURVE_%s" % C:
                bad.append("common/%s: %s (the rule: ZP_%s_...)" % (name, ident, C))
if bad:
    print("curve_names: %d name(s) break the curve naming rule (docs/DESIGN.md):" % len(bad))
    print("\n".join("  " + b for b in bad))
    sys.exit(1)
print("curve_names: every curve name in common/ follows the rule")
