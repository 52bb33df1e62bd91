"""Primitive procedures, grouped by topic.

* :mod:`~lispy.builtins.equality` ``eqv?`` / ``equal?``
* :mod:`~lispy.builtins.numeric`  arithmetic, comparison, number <-> string
* :mod:`~lispy.builtins.lists`    pairs and lists
* :mod:`~lispy.builtins.strings`  strings and ``format``
* :mod:`~lispy.builtins.higher`   ``apply``, ``map``, folds, ``sort`` (call back into Lisp)

The Lisp names are bound in :func:`lispy.globals.standard_env`.  The Python
functions take the Lisp arguments positionally and raise
:class:`~lispy.errors.LispError` subclasses on bad input.
"""
