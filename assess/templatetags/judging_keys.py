"""Key hints from the key map (assess.keymap, whose pages the tracks declare): {% key "next" %} for a data-key
attribute, {% kbd "next" %} for the hint on a button, {% key_list "<page id>" %} for the page's key list, its `?`
dialog and the key map the scripts read."""

from django import template
from django.utils.html import format_html

from assess import keymap, preferences

register = template.Library()


@register.simple_tag
def key(action):
    return keymap.key(action)


@register.simple_tag
def kbd(action):
    return format_html("<kbd>{}</kbd>", keymap.key(action))


@register.inclusion_tag("assess/_keys.html", takes_context=True)
def key_list(context, page, sidebar=True):
    """sidebar: the list stays in view beside the page (judging pages with room for it); otherwise only a
    "keys" button. Either way `?` opens the whole list in a dialog."""
    offers = keymap.get_page(page).auto_advance
    return {
        "page": page,
        "keys": keymap.for_page(page),
        "script_keys": keymap.for_script(page),
        "sidebar": sidebar,
        "auto_advance": offers,
        # the assessor's own setting, stored on the server (assess.preferences): the same in every browser
        "auto_advance_on": offers and preferences.auto_advance(context.get("user")),
    }
