"""The site: the atomic build, the skip when nothing changed, the PDF and the Chromium it is printed with, the execution report."""
