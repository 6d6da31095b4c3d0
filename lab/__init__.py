"""The lab: what builds and measures the product, and ships apart from it.

The scene renderer (`lab.synth`), the training recipes (`lab.training`), the evaluators
(`lab.evaluate`, `lab.layout_eval`, `lab.tracking_eval` with its ground-truth detector
`lab.oracle`) and the benchmarks (`lab.bench*`), with their commands under
`chickenfoot lab`. The lab imports the product (engine, vision, service); the product
never imports the lab, so either may change without the other noticing, and a run-time
install carries none of it. Installed with the `lab` extra (`pip install -e .[lab]`).
"""
