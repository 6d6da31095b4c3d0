"""Write the HEIC and AVIF test photos in `tests/fixtures/` from the demo hand (our own render).

They are saved as a phone saves a photo held upright: the pixels turned a quarter turn and the
turn recorded (EXIF orientation 6) for the viewer to undo; the HEIC writer turns that into the
HEIF transform an iPhone writes. The project only decodes HEIC (pi-heif); writing one needs the
encoder in pillow-heif, which is not a dependency:

    pip install --target /tmp/ph pillow-heif
    PYTHONPATH=/tmp/ph python scripts/make_photo_fixtures.py
"""
from __future__ import annotations

from pathlib import Path

import cv2
from PIL import Image

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    import pillow_heif

    pillow_heif.register_heif_opener()
    out = REPO / "tests" / "fixtures"
    out.mkdir(parents=True, exist_ok=True)
    hand = cv2.imread(str(REPO / "datasets" / "demo" / "hand.jpg"))
    exif = Image.Exif()
    exif[0x0112] = 6  # turn 90 degrees clockwise to show

    def save(img, name: str, quality: int) -> None:
        stored = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
        Image.fromarray(stored[..., ::-1]).save(out / name, exif=exif.tobytes(), quality=quality)
        print(out / name, (out / name).stat().st_size, "bytes")

    # large enough that it is shrunk like a phone photo (3200 -> 1600 px)
    save(cv2.resize(hand, (3200, 2400), interpolation=cv2.INTER_CUBIC), "hand_3200x2400.heic", 50)
    save(hand, "hand_1280x960.avif", 60)


if __name__ == "__main__":
    main()
