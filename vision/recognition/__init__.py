"""Recognition as a declared pipeline: one photo's boxes as columns (`candidates.Candidates`),
read and judged by stages of one signature (`pipeline.DEFAULT_PIPELINE`), each stage in the
module that owns its kind of work. `vision.recognize.Recognizer` builds the candidates, runs the
stages and makes the `Recognition`; notes and warnings are rendered from what the stages did
(`changes`), never parsed back out of text."""
