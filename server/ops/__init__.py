"""Operations: configuration, logs, metrics, and the ``solitaire`` command line."""
