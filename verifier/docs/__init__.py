"""The rules documentation: rule coverage, the site generator, SVG pictures, the Pygments lexer."""
