from django.core.management.base import BaseCommand, CommandError

from assess.assist_client import DEFAULTS, suggestible_kinds
from assess.formats.model_reply import PLACES, unknown_places
from pooling.evaluations import effective_settings, update_settings
from pooling.management.commands._common import get_evaluation


class Command(BaseCommand):
    help = (
        "Point an evaluation at a model server (OpenAI-compatible chat completions; docs/assist.md) or turn it "
        "off; prints the setting (the key itself is never stored: name the worker's environment variable)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        on = parser.add_mutually_exclusive_group()
        on.add_argument("--on", dest="enabled", action="store_true", default=None)
        on.add_argument("--off", dest="enabled", action="store_false")
        parser.add_argument("--base-url", help="e.g. http://127.0.0.1:11434/v1")
        parser.add_argument("--model", help="the model name the server knows")
        parser.add_argument("--key-env", help="the environment variable holding the API key (default ASSIST_API_KEY)")
        parser.add_argument("--prompt", nargs=2, action="append", metavar=("KIND", "FILE"), default=[])
        for name in ("temperature", "timeout"):
            parser.add_argument(f"--{name}", type=float)
        for name in ("max-tokens", "retries", "per-minute"):
            parser.add_argument(f"--{name}", type=int)

    def handle(self, slug, **o):
        evaluation = get_evaluation(slug)
        conf = DEFAULTS | (effective_settings(evaluation).get("assist_model") or {})
        given = {
            "enabled": o["enabled"],
            "base_url": o["base_url"],
            "model": o["model"],
            "key_env": o["key_env"],
            "temperature": o["temperature"],
            "timeout": o["timeout"],
            "max_tokens": o["max_tokens"],
            "retries": o["retries"],
            "per_minute": o["per_minute"],
        }
        conf |= {k: v for k, v in given.items() if v is not None}
        prompts = dict(conf.get("prompts") or {})
        for kind, path in o["prompt"]:
            if kind not in suggestible_kinds(evaluation):
                raise CommandError(f"{evaluation.track} has no judgment kind {kind!r}")
            try:
                with open(path, encoding="utf-8") as f:
                    template = f.read(100_000)
            except OSError as e:
                raise CommandError(f"{path}: {e.strerror}") from None
            bad = unknown_places(template)
            if bad:
                raise CommandError(f"{path}: unknown places {', '.join(bad)} (known: {', '.join(PLACES)})")
            prompts[kind] = template
        conf["prompts"] = prompts
        if conf["enabled"] and not (str(conf["base_url"]).startswith(("http://", "https://")) and conf["model"]):
            raise CommandError("give --base-url (http://…/v1) and --model to turn it on")
        update_settings(evaluation, {"assist_model": conf})
        shown = {k: v for k, v in conf.items() if k != "prompts"} | {"prompts": sorted(prompts)}
        self.stdout.write(f"{slug}: assist_model {shown}")
