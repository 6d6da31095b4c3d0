"""Read photos safely: EXIF orientation, huge files, and anything that is not an image.

Phone photos are 12-108 MP; decoding a JPEG at 1/2, 1/4 or 1/8 scale inside libjpeg
costs a fraction of the time and memory of a full decode, and tiles in such photos are
hundreds of pixels long, so nothing readable is lost. Every failure becomes an
`ImageError` with a one-line message; nothing here raises anything else.

iPhones save their photos as HEIC by default, and some Android phones as HEIF or AVIF: a
hand photographed at the end of a round comes in whichever the phone chose. HEIC/HEIF decode
through pi-heif (libheif with its HEVC decoder, decode only), AVIF through Pillow's own
plugin; both decode in full, then are shrunk to the size the JPEG path would have decoded
(`_reduction`), so a photo reads alike whatever format it was saved in.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

# Long side we aim to keep after reduced decoding: ample for 80x160 tile crops.
TARGET_LONG_SIDE = 1600
MAX_PIXELS_JPEG = 250_000_000  # JPEGs decode reduced, so very large ones are fine
MAX_PIXELS_OTHER = 50_000_000  # PNG/WebP/etc decode in full: refuse bombs
MAX_PIXELS_JPEG_BUFFERED = 50_000_000
"""Progressive, multi-scan and arithmetic-coded JPEGs: libjpeg keeps every coefficient of the whole
image in memory (2 bytes a sample) whatever scale it decodes at, so they get the full-decode limit."""
FLAT_MIN_PIXELS = 12_000_000
MAX_PIXELS_PER_BYTE = 100
"""A PNG, WebP, TIFF... over `FLAT_MIN_PIXELS` holding more than this many pixels per byte of file is a
decompression bomb, not a photo (a photo saved losslessly holds about one pixel a byte): refused
before it is inflated."""
MAX_BYTES = 60 * 1024 * 1024
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".heic", ".heif", ".avif"}
"""File names taken for photos where a folder is read (`watch FOLDER`, `eval --single-tiles`)."""

_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


class ImageError(ValueError):
    """The input cannot be read as a photo; the message says why, in one line.

    `kind` lets callers choose a response without parsing the message: "missing",
    "empty", "not_image", "corrupt" or "too_large".
    """

    def __init__(self, message: str, kind: str = "corrupt"):
        super().__init__(message)
        self.kind = kind


# Leading bytes of the formats we decode; anything else is refused before a parser sees it.
_SIGNATURES = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


# ISO base-media files (HEIC, HEIF, AVIF) open with a 'ftyp' box naming their brand.
_HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs", b"mif1", b"msf1",
                b"avif", b"avis")
FULL_DECODE_FORMATS = ("HEIF", "AVIF")
"""Formats no reduced decode exists for: decoded in full (HEIF by pi-heif, AVIF by Pillow), then
shrunk (`_reduction`)."""


def _looks_like_image(data: bytes) -> bool:
    return data.startswith(_SIGNATURES) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP") or \
        (data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS)


@lru_cache(maxsize=1)
def _heif_ready() -> bool:
    """Teach Pillow to open HEIC/HEIF, the first time such a file comes (importing pi-heif and
    its libraries costs ~35 ms, which a JPEG-only run need not pay). False where pi-heif is not
    installed."""
    try:
        import pi_heif
    except ImportError:
        return False
    # only the photo itself: no depth map, auxiliary image or thumbnail decoded beside it
    pi_heif.options.DEPTH_IMAGES = pi_heif.options.AUX_IMAGES = pi_heif.options.THUMBNAILS = False
    pi_heif.register_heif_opener()
    return True


def _reduction(long_side: int, target_long_side: int) -> int:
    """The power of two (at most 8) a photo is shrunk by: the largest that keeps its long side at
    `target_long_side` or more."""
    factor = 1
    while factor < 8 and long_side / (factor * 2) >= target_long_side:
        factor *= 2
    return factor


@dataclass
class LoadedImage:
    bgr: np.ndarray  # decoded pixels, EXIF orientation applied, possibly reduced
    scale: float  # multiply decoded-pixel coordinates by this to get original-pixel coordinates
    width: int  # original width after EXIF orientation
    height: int
    source: str


def load_image(src: str | Path | bytes, name: str | None = None, target_long_side: int = TARGET_LONG_SIDE) -> LoadedImage:
    """Decode `src` (a path or the file's bytes)."""
    label = name or (str(src) if not isinstance(src, (bytes, bytearray)) else "upload")
    if isinstance(src, (bytes, bytearray)):
        data = bytes(src)
    else:
        p = Path(src)
        if not p.exists():
            raise ImageError(f"{label}: no such file", "missing")
        if p.is_dir():
            raise ImageError(f"{label}: is a folder, not an image", "not_image")
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise ImageError(f"{label}: file is {size / 1e6:.0f} MB, over the {MAX_BYTES // 2**20} MB limit", "too_large")
        data = p.read_bytes()
    if not data:
        raise ImageError(f"{label}: empty file", "empty")
    if len(data) > MAX_BYTES:
        raise ImageError(f"{label}: file is {len(data) / 1e6:.0f} MB, over the {MAX_BYTES // 2**20} MB limit", "too_large")
    if not _looks_like_image(data):
        raise ImageError(f"{label}: not an image (unrecognised file type)", "not_image")
    is_heif = data[4:8] == b"ftyp"  # a HEIF brand: see `_looks_like_image`
    heif_ready = is_heif and _heif_ready()
    try:
        Image.MAX_IMAGE_PIXELS = None  # we apply our own limits below, per format
        # Image.open reads the header only: the size is known here and nothing is decoded yet
        with Image.open(io.BytesIO(data)) as im:
            fmt = im.format or "?"
            w0, h0 = im.size
            _check_header(data, fmt, w0, h0, label)  # refuses bombs before any pixel is decoded
            orientation = _orientation(im, data, fmt)
    except ImageError:
        raise
    except UnidentifiedImageError:
        if is_heif:  # whose boxes do not parse
            if not heif_ready:
                raise ImageError(f"{label}: HEIC/HEIF photos need the pi-heif package (pip install pi-heif)",
                                 "not_image") from None
            raise ImageError(f"{label}: HEIC/HEIF/AVIF data is corrupt or truncated") from None
        raise ImageError(f"{label}: not an image (unrecognised file type)", "not_image") from None
    except Exception as exc:  # noqa: BLE001 - any parser failure means "not readable"
        raise ImageError(f"{label}: cannot read image header ({type(exc).__name__})") from None
    is_jpeg = fmt == "JPEG"
    factor = _reduction(max(w0, h0), target_long_side) if is_jpeg or fmt in FULL_DECODE_FORMATS else 1
    if fmt in FULL_DECODE_FORMATS:
        bgr = _decode_heif(data) if fmt == "HEIF" else _decode_with_pil(data, label)
        if bgr is not None and factor > 1:
            h, w = bgr.shape[:2]
            bgr = cv2.resize(bgr, (max(1, round(w / factor)), max(1, round(h / factor))), interpolation=cv2.INTER_AREA)
    else:
        buf = np.frombuffer(data, np.uint8)
        bgr = cv2.imdecode(buf, _REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION)
        if bgr is None and fmt in ("PNG", "JPEG", "WEBP", "BMP", "TIFF", "MPO", "GIF"):
            bgr = _decode_with_pil(data, label, factor)
    if bgr is None:
        raise ImageError(f"{label}: image data is corrupt or truncated")
    bgr = _apply_orientation(bgr, orientation)
    h, w = bgr.shape[:2]
    W, H = (h0, w0) if orientation in (5, 6, 7, 8) else (w0, h0)
    return LoadedImage(np.ascontiguousarray(bgr), W / w, W, H, label)


def _check_header(data: bytes, fmt: str, w: int, h: int, label: str) -> None:
    """Refuse, from the header alone, what would cost far more to decode than a photo does: too many
    pixels for the format, a JPEG whose decoder would hold the whole image, a file too small for the
    size it declares (a decompression bomb), a JPEG cut off before its end. Nothing is decoded here."""
    pixels = w * h
    if w <= 0 or h <= 0:
        raise ImageError(f"{label}: image declares no pixels ({w}x{h})")
    is_jpeg = fmt == "JPEG"
    limit = MAX_PIXELS_JPEG if is_jpeg else MAX_PIXELS_OTHER
    if pixels > limit:
        raise ImageError(f"{label}: image is {pixels / 1e6:.0f} megapixels, over the {limit / 1e6:.0f} MP limit "
                         f"for {fmt}", "too_large")
    if fmt in ("JPEG", "MPO"):
        frame = _jpeg_frame(data)
        if frame is None or _looks_truncated(data):
            # libjpeg fills a cut-off file with grey and carries on; refuse rather than misread
            raise ImageError(f"{label}: JPEG is truncated (no end-of-image marker)")
        buffered, arithmetic, mcus, scan_bytes = frame
        if buffered and pixels > MAX_PIXELS_JPEG_BUFFERED:
            raise ImageError(f"{label}: progressive JPEG is {pixels / 1e6:.0f} megapixels, over the "
                             f"{MAX_PIXELS_JPEG_BUFFERED / 1e6:.0f} MP limit for progressive JPEGs", "too_large")
        if not arithmetic and scan_bytes * 8 < mcus:
            # every block of a Huffman-coded JPEG costs at least one bit: this one cannot hold its pixels
            raise ImageError(f"{label}: JPEG declares {w}x{h} pixels but holds only {scan_bytes} bytes of image "
                             "data: it is corrupt or truncated")
    elif pixels > FLAT_MIN_PIXELS and pixels > MAX_PIXELS_PER_BYTE * len(data):
        raise ImageError(f"{label}: {fmt} is {pixels / 1e6:.0f} megapixels in only {len(data) / 1e3:.0f} KB: "
                         "a decompression bomb, not a photo", "too_large")


def _jpeg_frame(data: bytes) -> tuple[bool, bool, int, int] | None:
    """From a JPEG's header segments: (whether libjpeg buffers the whole image: progressive or a first
    scan holding only some components, whether it is arithmetic-coded, how many MCUs the frame holds,
    how many bytes follow the first start-of-scan). None when there is no frame header or scan."""
    i, n = 2, len(data)
    sof: tuple[int, int, int, int, int] | None = None  # marker, width, height, components, mcus
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        seg = data[i + 4:i + 2 + length]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) and sof is None and len(seg) >= 6:
            h, w, nf = int.from_bytes(seg[1:3], "big"), int.from_bytes(seg[3:5], "big"), seg[5]
            factors = [(seg[7 + 3 * k] >> 4, seg[7 + 3 * k] & 15) for k in range(nf) if 8 + 3 * k <= len(seg)]
            hmax = max([f[0] for f in factors] + [1])
            vmax = max([f[1] for f in factors] + [1])
            mcus = -(-w // (8 * hmax)) * -(-h // (8 * vmax))
            sof = (marker, w, h, nf, mcus)
        elif marker == 0xDA:
            if sof is None or not seg:
                return None
            marker_sof, _, _, nf, mcus = sof
            progressive = marker_sof in (0xC2, 0xC6, 0xCA, 0xCE)
            arithmetic = marker_sof >= 0xC9
            return progressive or seg[0] < nf, arithmetic, mcus, n - (i + 2 + length)
        i += 2 + length
    return None


def _orientation(im: Image.Image, data: bytes, fmt: str) -> int:
    """The EXIF orientation (1-8; 1 when absent or unreadable), read without decoding any pixels.

    Pillow's PNG `getexif()` decodes the whole image to find an eXIf chunk after the pixel data,
    so for PNG the chunk is looked up in the file's bytes instead."""
    try:
        if fmt == "PNG":
            raw = _png_chunk(data, b"eXIf")
            if raw is None:
                return 1
            exif = Image.Exif()
            exif.load(raw)
        else:
            exif = im.getexif()
        value = int(exif.get(0x0112, 1) or 1)
        return value if 1 <= value <= 8 else 1
    except Exception:  # noqa: BLE001 - broken EXIF is common in messenger photos; ignore it
        return 1


def _png_chunk(data: bytes, kind: bytes) -> bytes | None:
    """The first chunk of `kind` in a PNG, found by walking chunk lengths (the pixel data is skipped, not read)."""
    i, n = 8, len(data)
    while i + 8 <= n:
        length = int.from_bytes(data[i:i + 4], "big")
        name = data[i + 4:i + 8]
        if name == kind:
            return data[i + 8:i + 8 + length]
        if name == b"IEND":
            return None
        i += 12 + length
    return None


def _looks_truncated(data: bytes) -> bool:
    """Whether a JPEG's own data stops before its end-of-image marker. The file's last bytes say
    nothing: phones append things after the marker (a Pixel or Samsung motion photo's video, a
    Samsung trailer), and such photos were refused as truncated. The marker is looked for from
    the first scan on, past the header segments, where the thumbnail a camera embeds in its EXIF
    (a whole JPEG, end marker included) cannot pass for it; in the scans themselves a 0xFF byte
    is always followed by 0x00 or a marker, so the first end marker there is the image's own."""
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return True  # the segment chain is broken
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
        elif marker == 0xDA:  # start of scan: the end marker must follow
            return data.find(b"\xff\xd9", i) < 0
        elif 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            i += 2
        else:
            i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return True


def _decode_with_pil(data: bytes, label: str, factor: int = 1) -> np.ndarray | None:
    """Pillow's decode, where OpenCV's failed; a JPEG is decoded reduced by `factor` here too."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            if factor > 1 and im.format in ("JPEG", "MPO"):
                im.draft("RGB", (max(1, im.width // factor), max(1, im.height // factor)))
            im.load()
            rgb = np.asarray(im.convert("RGB"))
        return np.ascontiguousarray(rgb[..., ::-1])
    except Exception:  # noqa: BLE001
        return None


def _decode_heif(data: bytes) -> np.ndarray | None:
    """HEIC/HEIF straight to BGR through pi-heif (its transforms applied, as on the phone's screen):
    about 50 ms less than through Pillow on a 7.7 MP photo."""
    import pi_heif

    try:
        heif = pi_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True, bgr_mode=True)
        # a copy while `heif` lives: a view of its buffer outlives the decoded image (a crash)
        arr = np.array(heif, copy=True)
    except Exception:  # noqa: BLE001 - libheif raises several types for a damaged file
        return None
    if arr.ndim == 2:
        arr = cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(arr[..., :3])


def _apply_orientation(img: np.ndarray, o: int) -> np.ndarray:
    if o == 2:
        return cv2.flip(img, 1)
    if o == 3:
        return cv2.rotate(img, cv2.ROTATE_180)
    if o == 4:
        return cv2.flip(img, 0)
    if o == 5:
        return cv2.flip(cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), 1)
    if o == 6:
        return cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    if o == 7:
        return cv2.flip(cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE), 1)
    if o == 8:
        return cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return img
