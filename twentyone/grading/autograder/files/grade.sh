#!/usr/bin/env bash
# PrairieLearn's external grader runs this in the twentyone image (the entrypoint of the question's
# externalGradingOptions): twentyone grades /grade/student by the rubric beside this script and writes
# /grade/results/results.json, in the language the bundle was built for (autograder prairielearn --lang).
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "${TWENTYONE_PREFIX:-/opt/twentyone}/twentyone-venv/bin/twentyone" autograder run prairielearn --lang @LANG@ \
    --config "$HERE/rubric.toml" "$@"
