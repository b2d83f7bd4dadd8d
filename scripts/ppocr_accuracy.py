"""Accuracy of reduced precision on trained models: the PP-OCR recogniser and direction classifier
(the .onnx files of rapidocr-onnxruntime 1.4.4, which scripts/setup puts in .venv/ppocr) on text
lines rendered here, each engine's reduced precision against its own float32.

  .venv/bin/python scripts/ppocr_accuracy.py [--lines 60] [--threads 2] [--engines hipinfer,onnxruntime,openvino]

Lines: words and numbers drawn with a fixed seed, rendered with DejaVu Sans at 18-40 px on
light backgrounds. The classifier sees every third line upside down, so that both of its classes
occur; the recogniser reads every line upright (as RapidOCR's pipeline gives it the lines the
classifier turned back), at height 48 and the line's own width (RapidOCR's preprocessing); the
classifier at 3x48x192; one line per run. Printed per engine and precision: lines whose text
equals the same engine's float32 text, the classifier's top-1 agreement with float32, the
largest difference of the classifier's scores, and lines read exactly as rendered."""
import argparse
import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WORDS = ("invoice total order number shipping berlin paris thank you page contact support reference "
         "batch size threads model engine speed memory receipt amount customer delivery address date "
         "quantity price tax net gross account balance payment card station platform gate").split()


def make_lines(count, seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(count):
        words = [str(w) for w in rng.choice(WORDS, size=int(rng.integers(2, 5)))]
        if i % 2 == 0:
            words.insert(int(rng.integers(0, len(words) + 1)), str(int(rng.integers(1, 99999))))
        text = " ".join(words)
        lines.append(text.capitalize() if i % 3 else text.upper())
    return lines


def render(text, index):
    from PIL import Image, ImageDraw, ImageFont
    size = 18 + (index * 7) % 23
    font = ImageFont.truetype(FONT, size)
    width = int(font.getlength(text)) + size
    shade = 255 - (index * 13) % 40
    img = Image.new("RGB", (width, int(size * 1.6)), (shade, shade, shade - (index % 3) * 5))
    ImageDraw.Draw(img).text((size // 2, size // 4), text, fill=(20, 20, 30), font=font)
    return np.asarray(img)


def resized(img, height, width_cap=None):
    import cv2
    ratio = img.shape[1] / img.shape[0]
    width = math.ceil(height * ratio)
    if width_cap:
        width = min(width, width_cap)
    x = cv2.resize(img, (width, height)).astype(np.float32).transpose(2, 0, 1) / 255
    x = (x - 0.5) / 0.5
    if width_cap:
        padded = np.zeros((3, height, width_cap), np.float32)
        padded[:, :, :width] = x
        x = padded
    return x[np.newaxis]


def ctc_text(probs, characters):
    best = probs.argmax(axis=-1)[0]
    keep = np.ones(len(best), bool)
    keep[1:] = best[1:] != best[:-1]
    keep &= best != 0
    return "".join(characters[i] for i in best[keep])


class Engine:
    """One engine at one precision, with the recogniser and the classifier loaded."""

    def __init__(self, name, precision, threads):
        self.name, self.precision = name, precision
        rec, cls = ROOT / ".venv/ppocr/ch_PP-OCRv4_rec_infer.onnx", ROOT / ".venv/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx"
        if name == "openvino":
            import openvino as ov
            core = ov.Core()
            config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
                      "INFERENCE_PRECISION_HINT": {"fp32": "f32", "bf16": "bf16"}[precision]}
            compiled = [core.compile_model(str(m), "CPU", config) for m in (rec, cls)]
            chosen = compiled[0].get_property("INFERENCE_PRECISION_HINT").to_string()
            self.label = f"OpenVINO {ov.__version__.split('-')[0]} (it chose {chosen})"
            self.run_rec = lambda x: compiled[0]([x])[compiled[0].outputs[0]]
            self.run_cls = lambda x: compiled[1]([x])[compiled[1].outputs[0]]
            return
        module = __import__(name)
        options = module.SessionOptions()
        options.intra_op_num_threads = threads
        if precision != "fp32":
            options.precision = precision  # hipinfer's; ONNX Runtime has no such option
        sessions = [module.InferenceSession(str(m), options, providers=["CPUExecutionProvider"]) for m in (rec, cls)]
        version = module.HIPINFER_VERSION if name == "hipinfer" else module.__version__
        self.label = f"{'hipinfer' if name == 'hipinfer' else 'ONNX Runtime'} {version}"
        self.run_rec = lambda x: sessions[0].run(None, {sessions[0].get_inputs()[0].name: x})[0]
        self.run_cls = lambda x: sessions[1].run(None, {sessions[1].get_inputs()[0].name: x})[0]


def characters():
    import onnx
    model = onnx.load(str(ROOT / ".venv/ppocr/ch_PP-OCRv4_rec_infer.onnx"), load_external_data=False)
    table = {p.key: p.value for p in model.metadata_props}["character"].splitlines()
    return ["blank", *table, " "]


def read_all(engine, images, chars):
    texts, scores = [], []
    for i, img in enumerate(images):
        texts.append(ctc_text(np.asarray(engine.run_rec(resized(img, 48))), chars).strip())
        turned = img[::-1, ::-1] if i % 3 == 0 else img
        scores.append(np.asarray(engine.run_cls(resized(np.ascontiguousarray(turned), 48, 192)))[0])
    return texts, np.array(scores)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=60)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--engines", default="hipinfer,onnxruntime,openvino")
    args = ap.parse_args()
    lines = make_lines(args.lines)
    images = [render(t, i) for i, t in enumerate(lines)]
    chars = characters()
    print(f"{len(lines)} rendered lines, {len(lines) - len(lines[::3])} upright for the classifier; {args.threads} threads")
    print("| engine | precision | recogniser text equal to its fp32 | classifier top-1 equal to its fp32 "
          "| classifier max score difference | lines read exactly as rendered |")
    print("|---|---|---|---|---|---|")
    for name in args.engines.split(","):
        precisions = ["fp32"] if name == "onnxruntime" else ["fp32", "bf16"]
        reference = None
        for precision in precisions:
            engine = Engine(name, precision, args.threads)
            texts, scores = read_all(engine, images, chars)
            exact = sum(t == want for t, want in zip(texts, lines))
            if reference is None:
                reference = (texts, scores)
                same_text = same_top1 = "(reference)"
                score_diff = "-"
            else:
                same_text = f"{sum(a == b for a, b in zip(texts, reference[0]))}/{len(lines)}"
                same_top1 = f"{int((scores.argmax(1) == reference[1].argmax(1)).sum())}/{len(lines)}"
                score_diff = f"{np.abs(scores - reference[1]).max():.1e}"
            print(f"| {engine.label} | {precision} | {same_text} | {same_top1} | {score_diff} | {exact}/{len(lines)} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
