"""Reading and writing files: the bottom layer.

One reader of the whitespace-separated formats (:mod:`metrics.io.columns`, over bounded chunks of
:mod:`metrics.io.textfile`), the layouts it recognises (:mod:`metrics.io.formats`,
:mod:`metrics.io.detect`), the frames and objects users hold (:mod:`metrics.io.inputs`,
:mod:`metrics.io.frames`), ids as integer codes (:mod:`metrics.io.ids`), query texts, ir_datasets ids,
and atomic writing (:mod:`metrics.io.fileio`, :mod:`metrics.io.writers`).  Imports nothing of the
layers above it.
"""
