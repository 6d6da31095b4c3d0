"""Bad input gets a one-line error; good input comes out upright and at a workable size."""
from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.imageio import ImageError, load_image


def _jpeg(w=320, h=240, **save) -> bytes:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = (0, 0, 255)  # left half red (BGR)
    buf = io.BytesIO()
    Image.fromarray(img[..., ::-1]).save(buf, "JPEG", **save)
    return buf.getvalue()


def _png_bomb(w: int, h: int) -> bytes:
    """A small PNG file (1-bit, all zero) that decompresses to a huge image."""
    raw = zlib.compress((b"\x00" * (w // 8 + 2)) * h, 9)

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def test_empty_file_is_refused_with_a_message(tmp_path):
    p = tmp_path / "empty.jpg"
    p.write_bytes(b"")
    with pytest.raises(ImageError, match="empty file"):
        load_image(p)


def test_text_file_is_not_an_image(tmp_path):
    p = tmp_path / "notes.jpg"
    p.write_text("these are my notes, not a photo")
    with pytest.raises(ImageError, match="not an image"):
        load_image(p)


def test_truncated_jpeg_is_refused():
    data = _jpeg()
    with pytest.raises(ImageError, match="truncated|corrupt"):
        load_image(data[: len(data) // 2])


def test_png_decompression_bomb_is_refused_before_decoding():
    with pytest.raises(ImageError, match="megapixels"):
        load_image(_png_bomb(20000, 20000))


def test_missing_file_and_folder_are_reported(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="folder"):
        load_image(tmp_path)


def test_exif_orientation_is_applied():
    """Orientation 6 (rotate 90 clockwise): a landscape file shows as portrait, red half on top."""
    exif = Image.Exif()
    exif[0x0112] = 6
    img = load_image(_jpeg(320, 240, exif=exif.tobytes()))
    assert (img.width, img.height) == (240, 320)
    assert img.bgr.shape[:2] == (320, 240)
    top, bottom = img.bgr[20, 120], img.bgr[300, 120]
    assert top[2] > 200 and bottom[2] < 50


def test_large_jpeg_decodes_reduced_with_coordinate_scale():
    data = _jpeg(4000, 3000, quality=70)
    img = load_image(data)
    assert max(img.bgr.shape[:2]) < 4000
    assert img.width == 4000 and img.height == 3000
    assert img.scale == pytest.approx(4000 / img.bgr.shape[1])


def test_png_with_alpha_loads_as_colour():
    buf = io.BytesIO()
    Image.new("RGBA", (50, 40), (10, 20, 30, 128)).save(buf, "PNG")
    img = load_image(buf.getvalue())
    assert img.bgr.shape == (40, 50, 3)


FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_heic_photo_comes_upright_at_the_size_a_jpeg_of_it_would_decode():
    """HEIC stores a phone's turn as a transform the decoder applies; the 3200x2400 photo is then
    shrunk by 2, as libjpeg's reduced decode would shrink a JPEG of it."""
    img = load_image(FIXTURES / "hand_3200x2400.heic")
    assert (img.width, img.height) == (3200, 2400)
    assert img.bgr.shape == (1200, 1600, 3)
    assert img.scale == pytest.approx(2.0)


def test_avif_photo_honours_its_exif_orientation():
    img = load_image(FIXTURES / "hand_1280x960.avif")
    assert (img.width, img.height) == (1280, 960) and img.bgr.shape == (960, 1280, 3)


def test_truncated_heic_is_refused():
    data = (FIXTURES / "hand_3200x2400.heic").read_bytes()
    with pytest.raises(ImageError, match="corrupt|truncated|cannot read"):
        load_image(data[: len(data) // 2])


def test_file_that_only_claims_to_be_heic_is_refused():
    fake = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64
    with pytest.raises(ImageError):
        load_image(fake)


def _with_thumbnail(jpeg: bytes) -> bytes:
    """`jpeg` with an APP1 segment holding a whole small JPEG, as a camera embeds its thumbnail."""
    thumb = _jpeg(32, 24)
    body = b"Exif\x00\x00" + thumb
    return jpeg[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + jpeg[2:]


def test_motion_photo_with_its_video_after_the_jpeg_is_read():
    """Pixel and Samsung motion photos append a video after the JPEG's end marker; they were
    refused as truncated because the file did not end with the marker."""
    video = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00isommp42" + bytes(range(256)) * 64
    img = load_image(_with_thumbnail(_jpeg(320, 240)) + video)
    assert img.bgr.shape == (240, 320, 3)


def test_truncated_jpeg_is_refused_though_its_thumbnail_is_whole():
    data = _with_thumbnail(_jpeg(640, 480, quality=95))
    with pytest.raises(ImageError, match="truncated|corrupt"):
        load_image(data[: len(data) - 200])


def test_progressive_jpeg_is_read_whole_and_refused_cut():
    data = _jpeg(640, 480, progressive=True, quality=90)
    assert load_image(data).bgr.shape == (480, 640, 3)
    with pytest.raises(ImageError, match="truncated|corrupt"):
        load_image(data[: len(data) * 2 // 3])


def test_a_video_sent_for_a_photo_is_not_an_image():
    """An MP4 or a Live Photo's MOV opens with an 'ftyp' box as a HEIC does, but names no image brand."""
    for brand in (b"isom", b"mp42", b"qt  "):
        with pytest.raises(ImageError, match="not an image"):
            load_image(b"\x00\x00\x00\x18ftyp" + brand + b"\x00\x00\x02\x00" + b"\x00" * 200)
