#!/bin/sh
return 'unterminated