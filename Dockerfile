# One image for the race server and the Discord bot; docker-compose.yml picks the command
# (`solitaire serve`, `solitaire bot`) and the environment.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# A C compiler for the C extensions (engine/native/, engine/solver/native/; setup.py).
RUN apt-get update \
    && apt-get install --yes --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir engine server bot \
    && touch engine/__init__.py server/__init__.py bot/__init__.py \
    && pip install . \
    && pip uninstall --yes solitaire-arena

COPY setup.py ./
COPY engine engine
COPY server server
COPY bot bot
COPY sql sql
# Editable, so the migration runner finds sql/ next to the server package, as in a checkout;
# this step also compiles the solver's C extensions in place.
# The bot's state folder belongs to its user: a volume mounted there first takes its owner.
RUN pip install --no-deps --editable . \
    && useradd --system --no-create-home solitaire \
    && install --directory --owner solitaire /var/lib/solitaire-bot

USER solitaire
CMD ["solitaire", "--help"]
