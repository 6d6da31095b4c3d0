"""The audit as a typed value: stages return new audits, the JSON is rendered from it at the edge."""
from __future__ import annotations

import json

import numpy as np

from engine import HouseRules
from lab.layout_eval import Noise, detections_from_plan
from lab.synth.table import plan_table
from vision.layout import audit_detections, audit_photo
from vision.layout_pixels import SlotLook, apply_slot_look
from vision.table_audit import AuditConfig, PhotoFacts, TableAudit
from vision.tracking.tuning import TrackerConfig
from vision.types import SECOND_READING_COST, Recognition

JITTER = Noise(drop=0.0)


def _short_chickie_audit() -> TableAudit:
    """A table with a chickie left short that one missed toe would explain (from detections alone)."""
    plan = plan_table(np.random.default_rng(200), plant_kind="chickie_unfinished")
    det = detections_from_plan(plan, np.random.default_rng(0), JITTER)
    audit = audit_detections(det.tiles, det.face_down, plan.set_max, HouseRules.from_dict(plan.meta["rules"]), None)
    (v,) = audit.violations
    assert v.rule == "chickie_unfinished" and v.unless_missed == v.rests_on
    return audit


def test_a_slot_showing_a_tile_withdraws_the_unfinished_double_verdict() -> None:
    audit = _short_chickie_audit()
    (double,) = audit.violations[0].rests_on
    looked = apply_slot_look(audit, SlotLook({double: True}))
    assert looked.violations == ()
    assert looked.unread_slots == (double,)
    assert looked.warnings[-1].startswith("not reported: " + audit.violations[0].message)
    out = looked.to_dict()
    assert out["violations"] == [] and out["unread_slots"] == [double]


def test_a_slot_showing_bare_table_confirms_the_verdict_as_checked_by_the_photo() -> None:
    audit = _short_chickie_audit()
    (double,) = audit.violations[0].rests_on
    (v,) = apply_slot_look(audit, SlotLook({double: False})).violations
    assert v.photo_checked and v.unless_missed == ()
    assert list(v.to_dict()) == ["rule", "message", "tiles", "rests_on", "photo_checked"]


def test_a_slot_that_cannot_be_told_from_table_leaves_the_verdict_unproven() -> None:
    audit = _short_chickie_audit()
    (double,) = audit.violations[0].rests_on
    looked = apply_slot_look(audit, SlotLook({double: None}))
    assert looked.to_dict() == audit.to_dict()
    assert "unread_slots" not in looked.to_dict()


def test_applying_a_look_leaves_the_audit_it_was_given_unchanged() -> None:
    audit = _short_chickie_audit()
    before = json.dumps(audit.to_dict())
    (double,) = audit.violations[0].rests_on
    for shows in (True, False, None):
        apply_slot_look(audit, SlotLook({double: shows}))
    assert json.dumps(audit.to_dict()) == before


def test_the_audit_json_is_rendered_afresh_from_the_typed_audit() -> None:
    audit = _short_chickie_audit()
    out = audit.to_dict()
    out["violations"].clear()
    out["warnings"].append("edited")
    out["tiles"][0]["pips"] = None
    again = audit.to_dict()
    assert again["violations"] and "edited" not in again["warnings"] and again["tiles"][0]["pips"] is not None
    json.dumps(again)


def test_the_photo_audit_json_puts_the_photo_first_and_its_warnings_before_the_layouts() -> None:
    plan = plan_table(np.random.default_rng(200), plant_kind="chickie_unfinished")
    det = detections_from_plan(plan, np.random.default_rng(0), JITTER)
    rec = Recognition("table.jpg", 1280, 960, det.tiles, det.face_down, plan.set_max,
                      warnings=["the photo is blurred"], seconds=0.5)
    audit = audit_photo(rec, plan.set_max, HouseRules.from_dict(plan.meta["rules"]))
    assert audit.photo == PhotoFacts("table.jpg", 1280, 960, ("the photo is blurred",), 0.5)
    out = audit.to_dict()
    assert list(out)[:3] == ["image", "width", "height"] and list(out)[-1] == "seconds"
    assert out["warnings"] == ["the photo is blurred", *audit.warnings]
    assert out["seconds"] == round(0.5 + audit.layout_seconds, 3)


def test_the_audit_and_the_tracker_take_second_readings_up_to_one_cost() -> None:
    assert AuditConfig().second_reading_cost == TrackerConfig().second_reading_cost == SECOND_READING_COST == 0.2
