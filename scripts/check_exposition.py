#!/usr/bin/env python3
"""Parses `prof exporter`'s exposition with the Prometheus project's own Python client parser
(prometheus_client.openmetrics.parser, strict OpenMetrics) and prints each family with its
samples; exits non-zero when it does not parse. Issue #54.

  prof exporter --once | python3 scripts/check_exposition.py
  curl -s localhost:9464/metrics | python3 scripts/check_exposition.py
"""
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families

text = sys.stdin.read()
families = list(text_string_to_metric_families(text))
for family in families:
    print(f"{family.name} ({family.type}{', ' + family.unit if family.unit else ''}): {len(family.samples)} samples")
    for sample in family.samples[:2]:
        print(f"   {sample.name}{dict(sample.labels)} = {sample.value}")
print(f"parsed {len(families)} families, {sum(len(f.samples) for f in families)} samples")
