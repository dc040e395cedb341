"""Helpers the unit and functional tests share."""

import threading


def all_at_once(count, work):
    """Run ``work(index)`` in ``count`` threads released together.

    :returns: the exceptions they raised, in no particular order.
    """
    errors, start = [], threading.Barrier(count)

    def run(index):
        start.wait()
        try:
            work(index)
        except Exception as exc:
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(index,))
               for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
