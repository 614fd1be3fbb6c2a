"""Core of ir-workbench: readers, trec_eval-exact measures, curves, comparisons, reports.

Pure numpy/pandas; this package never imports Qt.
"""
