"""privlift's side of the comparison, through its CLI: design the documents, simulate the
population's users (each perturbs on the native client), estimate and find heavy hitters
from the stored reports."""
import json
import os
import subprocess
import time


class Cli:
    def __init__(self, binary, work):
        self.binary = binary
        self.work = work

    def run(self, *args):
        out = subprocess.run([self.binary, *map(str, args)], check=True, capture_output=True, text=True)
        return out.stdout

    def design(self, kind, eps, max_bytes, ident, directory):
        """The document of `kind` (olh, hadamard, hcms, heavy-hitters) at ε, written to directory."""
        if kind == "heavy-hitters":
            text = self.run("design", kind, "--epsilon", eps, "--max-bytes", max_bytes, "--id", ident)
        else:
            text = self.run("design", kind, "--epsilon", eps, "--domain", "strings",
                            "--max-bytes", max_bytes, "--id", ident)
        with open(os.path.join(directory, ident + ".json"), "w") as f:
            f.write(text)
        return json.loads(text)

    def simulate(self, db, directory, users, seed, population, truth):
        self.run("simulate", "--db", db, "--dir", directory, "--users", users, "--seed", seed,
                 "--population", population, "--truth", truth)
        with open(truth) as f:
            return json.load(f)

    def estimate(self, db, ident, candidates):
        """The estimate's JSON and its wall-clock seconds."""
        t0 = time.perf_counter()
        out = json.loads(self.run("estimate", "--db", db, "--mechanism", ident, "--candidates", candidates))
        return out, time.perf_counter() - t0

    def heavy_hitters(self, db, ident, top):
        return json.loads(self.run("heavy-hitters", "--db", db, "--mechanism", ident, "--top", top))


class Example:
    """privlift's side through the library (`design/examples/open_domain.rs`): the same
    designers, client and estimators as the CLI, without the database."""

    def __init__(self, binary):
        self.binary = binary

    def run(self, kind, eps, n, seed, ident, words, tops=(10, 20), reps=1, candidates=None):
        """One document's run; `candidates` (word ranks) limits the estimate to those words."""
        extra = [] if candidates is None else ["--candidates", ",".join(map(str, candidates))]
        out = subprocess.run([self.binary, "--kind", kind, "--epsilon", str(eps), "--n", str(n), "--seed", str(seed),
                              "--id", ident, "--words", str(words), "--top", ",".join(map(str, tops)),
                              "--reps", str(reps), *extra],
                             check=True, capture_output=True, text=True)
        return json.loads(out.stdout)
