#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Text from outside the process, kept on one log line.

A client chooses the bytes of a path, a query, a header, a name or an id;
once decoded they may hold a line feed (a forged log line after it), a NUL
(``grep`` then calls the file binary) or an ANSI escape (a terminal that
shows the log obeys it). ``escape()`` writes every such character as a
Python escape (``\\n``, ``\\x00``, ``\\x1b``), so that the text stays
readable and the line stays one line.

``install()`` makes it the rule of every log record of the process: the
values a message interpolates (its arguments) are escaped when the record
is made, and ``RequestContext.get_logging_values()`` escapes what the log
prefix shows of a request (its ids, user and project). The format string
is the code's own and is left as written, as are the tracebacks oslo.log
appends to a record of the server's own errors, which keep their lines.
"""

import collections.abc
import logging
import numbers
import re

# C0 controls, DEL, C1 controls, and the two Unicode line and paragraph
# separators that some viewers break lines at.
_CONTROL = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029]')
_NAMED = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}


def _escaped_char(match):
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    if ord(char) <= 0xff:
        return '\\x%02x' % ord(char)
    return '\\u%04x' % ord(char)


def escape(text):
    """``text`` with its control characters written as escapes.

    A backslash is left alone: the escapes are for a reader, not a
    parser, and text with backslashes of its own stays as sent.
    """
    if text.isprintable():
        # None of _CONTROL's characters is printable; most text is.
        return text
    return _CONTROL.sub(_escaped_char, text)


class _EscapedText(str):
    """Escaped text whose ``%r`` is the escaped repr of the original.

    Without it ``%r`` would show the escapes' backslashes doubled.
    """

    def __new__(cls, original):
        text = super().__new__(cls, escape(original))
        text.original = original
        return text

    def __repr__(self):
        return escape(repr(self.original))


class _Escaped(object):
    """An argument of a log record that is not plain text or a number.

    ``%s`` and ``%r`` of it are those of the object, escaped; it is
    made only when the record is, its text only if the record is shown.
    """

    __slots__ = ('value',)

    def __init__(self, value):
        self.value = value

    def __str__(self):
        return escape(str(self.value))

    def __repr__(self):
        return escape(repr(self.value))


# Formatted as they are: nothing a client chooses can be in them.
_AS_IS = (numbers.Number, type(None), bytes)


def escape_value(value):
    """``value`` as a log record should interpolate it."""
    if isinstance(value, str):
        return _EscapedText(value)
    if isinstance(value, _AS_IS):
        return value
    return _Escaped(value)


def escape_args(args):
    """The arguments of a log record (a tuple or a mapping), escaped."""
    if isinstance(args, collections.abc.Mapping):
        return {key: escape_value(value) for key, value in args.items()}
    if isinstance(args, tuple):
        return tuple(escape_value(value) for value in args)
    return args


class _EscapingRecordFactory(object):
    """Wraps the process' log record factory; escapes what it is given."""

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def __call__(self, *args, **kwargs):
        record = self.wrapped(*args, **kwargs)
        if record.args:
            record.args = escape_args(record.args)
        if not isinstance(record.msg, str):
            # LOG.error(exc): the object is its message.
            record.msg = escape_value(record.msg)
        return record


def install():
    """Escape the arguments of every log record made in this process.

    Idempotent; call it once logging is set up.
    """
    factory = logging.getLogRecordFactory()
    if not isinstance(factory, _EscapingRecordFactory):
        logging.setLogRecordFactory(_EscapingRecordFactory(factory))
